"""Hardware of every curated instance type: (cloud, instance type, Shape).

Figures: the providers' public instance-type pages as known in 2024-2025 (vCPUs, memory in GiB,
local instance storage in GB; None = EBS / persistent disk only), cross-checked against
reference/gpu-prices.csv where it lists the type. Accelerator memory per accelerator in GiB:
AWS figures as the SkyPilot catalog reports them (A10G/L4 22.35, L40S 44.7), else the spec sheet.

Interconnect between instances: ``efa`` where the AWS type supports Elastic Fabric Adapter
(g4dn/g5/g6/g6e 8xlarge and up: 50-100 Gbps; p3dn/p4d/p4de: 100-400 Gbps; p5/p5en: 3200 Gbps;
trn1.32xlarge: 800 Gbps), ``infiniband`` for Azure ND (HDR/NDR), ``gpudirect-tcpx`` for GCP
a3 (TCPX on a3-highgpu, TCPXO on a3-megagpu; a3-ultragpu uses GPUDirect RDMA over RoCE, recorded
in the same high-bandwidth class), ``ethernet`` otherwise.
"""

from __future__ import annotations

from infra_gen.catalog.curated import Shape

_AWS_G = {  # size: (vcpus, memory_gib, gpus) for g5 and g6; g6e has twice the memory
    "xlarge": (4, 16, 1), "2xlarge": (8, 32, 1), "4xlarge": (16, 64, 1), "8xlarge": (32, 128, 1),
    "12xlarge": (48, 192, 4), "16xlarge": (64, 256, 1), "24xlarge": (96, 384, 4),
    "48xlarge": (192, 768, 8),
}
_G5_DISK = {"xlarge": 250, "2xlarge": 450, "4xlarge": 600, "8xlarge": 900, "12xlarge": 3800,
            "16xlarge": 1900, "24xlarge": 3800, "48xlarge": 7600}
_G6_DISK = {"xlarge": 250, "2xlarge": 450, "4xlarge": 600, "8xlarge": 900, "12xlarge": 3760,
            "16xlarge": 1880, "24xlarge": 3760, "48xlarge": 7520}
_EFA_SIZES = {"8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge", "metal"}


def _aws_g(family: str, accel: str, mem: float, disk: dict[str, int], ram_x: int
           ) -> list[tuple[str, str, Shape]]:
    rows = []
    for size, (vcpus, ram, gpus) in _AWS_G.items():
        ic = "efa" if size in _EFA_SIZES else "ethernet"
        shape = Shape(family, accel, gpus, mem, vcpus, ram * ram_x, disk[size], ic)
        rows.append(("aws", f"{family}.{size}", shape))
    return rows


_G4DN = {"xlarge": (4, 16, 1, 125), "2xlarge": (8, 32, 1, 225), "4xlarge": (16, 64, 1, 225),
         "8xlarge": (32, 128, 1, 900), "12xlarge": (48, 192, 4, 900),
         "16xlarge": (64, 256, 1, 900), "metal": (96, 384, 8, 1800)}


def _aws() -> list[tuple[str, str, Shape]]:
    rows = [("aws", f"g4dn.{size}", Shape("g4dn", "T4", g, 16, v, m, d,
                                           "efa" if size in _EFA_SIZES else "ethernet"))
            for size, (v, m, g, d) in _G4DN.items()]
    rows += _aws_g("g5", "A10G", 22.35, _G5_DISK, 1)
    rows += _aws_g("g6", "L4", 22.35, _G6_DISK, 1)
    rows += _aws_g("g6e", "L40S", 44.7, _G5_DISK, 2)  # g6e has twice g5's memory per size
    rows += [
        ("aws", "p3.2xlarge", Shape("p3", "V100", 1, 16, 8, 61, None, "ethernet")),
        ("aws", "p3.8xlarge", Shape("p3", "V100", 4, 16, 32, 244, None, "ethernet")),
        ("aws", "p3.16xlarge", Shape("p3", "V100", 8, 16, 64, 488, None, "ethernet")),
        ("aws", "p3dn.24xlarge", Shape("p3dn", "V100", 8, 32, 96, 768, 1800, "efa")),
        ("aws", "p4d.24xlarge", Shape("p4d", "A100-40GB", 8, 40, 96, 1152, 8000, "efa")),
        ("aws", "p4de.24xlarge", Shape("p4de", "A100-80GB", 8, 80, 96, 1152, 8000, "efa")),
        ("aws", "p5.48xlarge", Shape("p5", "H100", 8, 80, 192, 2048, 30400, "efa")),
        ("aws", "p5en.48xlarge", Shape("p5en", "H200", 8, 141, 192, 2048, 30400, "efa")),
        ("aws", "inf2.xlarge", Shape("inf2", "Inferentia2", 1, 32, 4, 16, None, "ethernet")),
        ("aws", "inf2.8xlarge", Shape("inf2", "Inferentia2", 1, 32, 32, 128, None, "ethernet")),
        ("aws", "inf2.24xlarge", Shape("inf2", "Inferentia2", 6, 32, 96, 384, None, "ethernet")),
        ("aws", "inf2.48xlarge", Shape("inf2", "Inferentia2", 12, 32, 192, 768, None,
                                       "ethernet")),
        ("aws", "trn1.2xlarge", Shape("trn1", "Trainium", 1, 32, 8, 32, 474, "ethernet")),
        ("aws", "trn1.32xlarge", Shape("trn1", "Trainium", 16, 32, 128, 512, 7600, "efa")),
    ]
    return rows


def _gcp() -> list[tuple[str, str, Shape]]:
    n1 = {4: 15, 8: 30, 16: 60, 32: 120, 64: 240}  # n1-standard-N: GiB of memory
    rows = [("gcp", f"n1-standard-{v}", Shape("n1-T4", "T4", g, 16, v, n1[v], None, "ethernet"))
            for v, g in ((4, 1), (8, 1), (16, 2), (32, 4))]
    rows += [("gcp", f"n1-standard-{v}", Shape("n1-V100", "V100", g, 16, v, n1[v], None,
                                               "ethernet"))
             for v, g in ((8, 1), (16, 2), (32, 4), (64, 8))]
    rows += [("gcp", f"g2-standard-{v}", Shape("g2", "L4", g, 24, v, v * 4, None, "ethernet"))
             for v, g in ((4, 1), (8, 1), (12, 1), (16, 1), (24, 2), (32, 1), (48, 4), (96, 8))]
    rows += [("gcp", f"a2-highgpu-{g}g", Shape("a2-highgpu", "A100-40GB", g, 40, 12 * g, 85 * g,
                                               None, "ethernet")) for g in (1, 2, 4, 8)]
    rows += [("gcp", f"a2-ultragpu-{g}g", Shape("a2-ultragpu", "A100-80GB", g, 80, 12 * g,
                                                170 * g, 375 * g, "ethernet"))
             for g in (1, 2, 4, 8)]
    rows += [
        ("gcp", "a3-highgpu-8g", Shape("a3-highgpu", "H100", 8, 80, 208, 1872, 6000,
                                       "gpudirect-tcpx")),
        ("gcp", "a3-megagpu-8g", Shape("a3-megagpu", "H100", 8, 80, 208, 1872, 6000,
                                       "gpudirect-tcpx")),
        ("gcp", "a3-ultragpu-8g", Shape("a3-ultragpu", "H200", 8, 141, 224, 2952, 12000,
                                        "gpudirect-tcpx")),
    ]
    return rows


def _azure() -> list[tuple[str, str, Shape]]:
    def az(name: str, *args: object) -> tuple[str, str, Shape]:
        return ("azure", f"Standard_{name}", Shape(*args))  # type: ignore[arg-type]

    return [
        az("NC4as_T4_v3", "NCasT4_v3", "T4", 1, 16, 4, 28, 180, "ethernet"),
        az("NC8as_T4_v3", "NCasT4_v3", "T4", 1, 16, 8, 56, 360, "ethernet"),
        az("NC16as_T4_v3", "NCasT4_v3", "T4", 1, 16, 16, 110, 360, "ethernet"),
        az("NC64as_T4_v3", "NCasT4_v3", "T4", 4, 16, 64, 440, 2880, "ethernet"),
        az("NV36ads_A10_v5", "NVadsA10_v5", "A10", 1, 24, 36, 440, 720, "ethernet"),
        az("NV72ads_A10_v5", "NVadsA10_v5", "A10", 2, 24, 72, 880, None, "ethernet"),
        az("NC24ads_A100_v4", "NCA100v4", "A100-80GB", 1, 80, 24, 220, 960, "ethernet"),
        az("NC48ads_A100_v4", "NCA100v4", "A100-80GB", 2, 80, 48, 440, 1920, "ethernet"),
        az("NC96ads_A100_v4", "NCA100v4", "A100-80GB", 4, 80, 96, 880, 3840, "ethernet"),
        az("ND96asr_v4", "NDA100v4", "A100-40GB", 8, 40, 96, 900, None, "infiniband"),
        az("ND96amsr_A100_v4", "NDA100v4-80", "A100-80GB", 8, 80, 96, 1800, None, "infiniband"),
        az("NC40ads_H100_v5", "NCH100v5", "H100-NVL", 1, 94, 40, 320, None, "ethernet"),
        az("NC80adis_H100_v5", "NCH100v5", "H100-NVL", 2, 94, 80, 640, None, "ethernet"),
        az("ND96isr_H100_v5", "NDH100v5", "H100", 8, 80, 96, 1900, 28000, "infiniband"),
        az("ND96isr_H200_v5", "NDH200v5", "H200", 8, 141, 96, 1850, None, "infiniband"),
    ]


SHAPES: list[tuple[str, str, Shape]] = _aws() + _gcp() + _azure()
