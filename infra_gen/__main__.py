from infra_gen.cli import main

main()
