

def test_right_sizing_only_suggests_accelerators_the_planner_would_pick() -> None:
    """Inferentia2 and Trainium (32 GiB, Neuron SDK) are not CUDA drop-ins: suggesting them
    for a CUDA workload that needs 20 GiB would be wrong; A10G/L4/L40S on AWS are fine."""
    from infra_gen.catalog.load import load_catalog
    from infra_gen.policy.pricing import PriceBook

    book = PriceBook.from_catalog(load_catalog())
    names = [name for name, _ in book.smaller_fits("aws", 20.0, 80.0)]
    assert "Inferentia2" not in names and "Trainium" not in names
    assert {"A10G", "L4", "L40S"} <= set(names)
