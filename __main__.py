"""The Pulumi program: `pulumi up` reads stack config `infra-gen:workload` (issue 7 fills in)."""
