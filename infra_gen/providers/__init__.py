"""Cloud providers: Plan -> Pulumi resources inside one ``GpuWorkload`` component."""
