"""Prices of every curated offer: (cloud, region, instance type, accelerator, on-demand, spot,
source, as_of), USD per instance-hour. See ``curated.py`` for what each source means."""

from __future__ import annotations

import datetime as dt

from infra_gen.catalog.curated import (
    A3_EU_UPLIFT,
    AWS_EU_FACTOR,
    LIST,
    LIST_AS_OF,
    REF,
    REF_AS_OF,
    REF_PRECUT,
)

Row = tuple[str, str, str, str, float, float | None, str, dt.date]

# reference/gpu-prices.csv, copied as is. Name mapping: its 'A100' on p4d / a2-highgpu /
# ND96asr_v4 is A100-40GB; 'H100-MEGA' is H100; Azure NC40ads_H100_v5's 'H100' is the H100 NVL
# part (94 GB, per the accelerator table). p5e.48xlarge is left out: the source has no on-demand
# price for it (capacity blocks only).
_REF: list[tuple[str, str, str, str, float, float | None]] = [
    ("aws", "us-east-1", "g4dn.xlarge", "T4", 0.526, 0.1845),
    ("aws", "us-west-2", "g4dn.xlarge", "T4", 0.526, 0.1779),
    ("aws", "us-east-1", "g4dn.12xlarge", "T4", 3.912, 1.2684),
    ("aws", "us-west-2", "g4dn.12xlarge", "T4", 3.912, 1.4264),
    ("aws", "us-east-1", "g5.xlarge", "A10G", 1.006, 0.397),
    ("aws", "us-west-2", "g5.xlarge", "A10G", 1.006, 0.357),
    ("aws", "us-east-1", "g5.2xlarge", "A10G", 1.212, 0.4288),
    ("aws", "us-west-2", "g5.2xlarge", "A10G", 1.212, 0.409),
    ("aws", "us-east-1", "g5.12xlarge", "A10G", 5.672, 1.9937),
    ("aws", "us-west-2", "g5.12xlarge", "A10G", 5.672, 1.8005),
    ("aws", "us-east-1", "g5.48xlarge", "A10G", 16.288, 3.9266),
    ("aws", "us-west-2", "g5.48xlarge", "A10G", 16.288, 4.8284),
    ("aws", "us-east-1", "g6.xlarge", "L4", 0.8048, 0.3879),
    ("aws", "us-west-2", "g6.xlarge", "L4", 0.8048, 0.399),
    ("aws", "us-east-1", "g6.12xlarge", "L4", 4.6016, 1.8626),
    ("aws", "us-west-2", "g6.12xlarge", "L4", 4.6016, 1.6626),
    ("aws", "us-east-1", "g6e.xlarge", "L40S", 1.861, 0.787),
    ("aws", "us-west-2", "g6e.xlarge", "L40S", 1.861, 0.7915),
    ("aws", "us-east-1", "g6e.12xlarge", "L40S", 10.49264, 4.2359),
    ("aws", "us-west-2", "g6e.12xlarge", "L40S", 10.49264, 4.6505),
    ("aws", "us-east-1", "p3.2xlarge", "V100", 3.06, 0.5197),
    ("aws", "us-west-2", "p3.2xlarge", "V100", 3.06, 0.9362),
    ("aws", "us-east-1", "inf2.xlarge", "Inferentia2", 0.7582, 0.1205),
    ("aws", "us-west-2", "inf2.xlarge", "Inferentia2", 0.7582, 0.226),
    ("aws", "us-east-1", "trn1.32xlarge", "Trainium", 21.5, 2.8801),
    ("aws", "us-west-2", "trn1.32xlarge", "Trainium", 21.5, 6.4077),
    ("gcp", "us-central1", "n1-standard-8", "T4", 0.73, 0.2363),
    ("gcp", "europe-west4", "n1-standard-8", "T4", 0.78584, 0.29564),
    ("gcp", "us-central1", "g2-standard-4", "L4", 0.70683, 0.28184),
    ("gcp", "europe-west4", "g2-standard-4", "L4", 0.74233, 0.27234),
    ("gcp", "us-central1", "g2-standard-48", "L4", 4.00166, 1.59723),
    ("gcp", "europe-west4", "g2-standard-48", "L4", 4.2036, 1.58323),
    ("gcp", "us-central1", "a2-highgpu-1g", "A100-40GB", 3.67339, 1.44296),
    ("gcp", "us-central1", "a2-highgpu-8g", "A100-40GB", 29.38708, 11.54364),
    ("gcp", "europe-west4", "a3-highgpu-8g", "H100", 111.81719, 20.1192),
    ("gcp", "us-central1", "a3-megagpu-8g", "H100", 92.21427, 21.20827),
    ("gcp", "europe-west4", "a3-megagpu-8g", "H100", 117.51354, 21.1536),
    ("gcp", "us-central1", "a3-ultragpu-8g", "H200", 86.75992, 32.61871),
    ("azure", "eastus", "Standard_NC4as_T4_v3", "T4", 0.526, 0.062699),
    ("azure", "eastus", "Standard_NC24ads_A100_v4", "A100-80GB", 3.673, 0.444433),
    ("azure", "eastus", "Standard_NC96ads_A100_v4", "A100-80GB", 14.692, 1.777732),
    ("azure", "eastus", "Standard_ND96asr_v4", "A100-40GB", 27.197, 2.99167),
    ("azure", "eastus", "Standard_ND96amsr_A100_v4", "A100-80GB", 32.77, 3.6047),
    ("azure", "eastus", "Standard_NV36ads_A10_v5", "A10", 3.2, 0.8),
    ("azure", "eastus", "Standard_NC40ads_H100_v5", "H100-NVL", 6.98, None),
    ("azure", "eastus", "Standard_ND96isr_H100_v5", "H100", 98.32, None),
]
_PRECUT = {"p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5en.48xlarge"}
_REF_PRECUT: list[tuple[str, str, str, str, float, float | None]] = [
    ("aws", "us-east-1", "p4d.24xlarge", "A100-40GB", 32.7726, 5.0933),
    ("aws", "us-west-2", "p4d.24xlarge", "A100-40GB", 32.7726, 10.507),
    ("aws", "us-east-1", "p4de.24xlarge", "A100-80GB", 40.96575, 5.8394),
    ("aws", "us-west-2", "p4de.24xlarge", "A100-80GB", 40.96575, 6.8849),
    ("aws", "us-east-1", "p5.48xlarge", "H100", 98.32, 20.9934),
    ("aws", "us-west-2", "p5.48xlarge", "H100", 98.32, 30.5798),
    ("aws", "us-east-1", "p5en.48xlarge", "H200", 84.8, 24.2902),
    ("aws", "us-west-2", "p5en.48xlarge", "H200", 84.8, 25.2326),
]

# AWS public on-demand list prices, us-east-1 = us-west-2 for these families (2024-2025).
_AWS_LIST = {
    "g4dn.2xlarge": ("T4", 0.752), "g4dn.4xlarge": ("T4", 1.204), "g4dn.8xlarge": ("T4", 2.176),
    "g4dn.16xlarge": ("T4", 4.352), "g4dn.metal": ("T4", 7.824),
    "g5.4xlarge": ("A10G", 1.624), "g5.8xlarge": ("A10G", 2.448), "g5.16xlarge": ("A10G", 4.096),
    "g5.24xlarge": ("A10G", 8.144),
    "g6.2xlarge": ("L4", 0.9776), "g6.4xlarge": ("L4", 1.3232), "g6.8xlarge": ("L4", 2.0144),
    "g6.16xlarge": ("L4", 3.3968), "g6.24xlarge": ("L4", 6.6752), "g6.48xlarge": ("L4", 13.3504),
    "g6e.2xlarge": ("L40S", 2.24208), "g6e.4xlarge": ("L40S", 3.00424),
    "g6e.8xlarge": ("L40S", 4.52856), "g6e.16xlarge": ("L40S", 7.57719),
    "g6e.24xlarge": ("L40S", 15.06559), "g6e.48xlarge": ("L40S", 30.13118),
    "p3.8xlarge": ("V100", 12.24), "p3.16xlarge": ("V100", 24.48),
    "p3dn.24xlarge": ("V100", 31.212),
    "inf2.8xlarge": ("Inferentia2", 1.96786), "inf2.24xlarge": ("Inferentia2", 6.49063),
    "inf2.48xlarge": ("Inferentia2", 12.98127),
    "trn1.2xlarge": ("Trainium", 1.34375),
}
# Europe west (eu-west-1): g4dn and g5, from the us-east-1 list price x AWS_EU_FACTOR.
_AWS_EU = {"g4dn.xlarge": ("T4", 0.526), "g4dn.2xlarge": ("T4", 0.752),
           "g4dn.12xlarge": ("T4", 3.912), "g5.xlarge": ("A10G", 1.006),
           "g5.2xlarge": ("A10G", 1.212), "g5.12xlarge": ("A10G", 5.672),
           "g5.48xlarge": ("A10G", 16.288)}

# GCP us-central1 N1 + GPU: composed from list component prices (see curated.py).
_N1_VCPU, _N1_GIB, _T4, _V100 = 0.031611, 0.004237, 0.35, 2.48
_N1_MEM = {4: 15, 8: 30, 16: 60, 32: 120, 64: 240}
# GCP us-central1 list prices for the other sizes (2024-2025; not verified).
_GCP_LIST = {
    "g2-standard-8": ("L4", 0.85362), "g2-standard-12": ("L4", 1.00041),
    "g2-standard-16": ("L4", 1.1472), "g2-standard-24": ("L4", 2.00083),
    "g2-standard-32": ("L4", 1.73437), "g2-standard-96": ("L4", 8.00331),
    "a2-highgpu-2g": ("A100-40GB", 7.34678), "a2-highgpu-4g": ("A100-40GB", 14.69356),
    "a2-ultragpu-1g": ("A100-80GB", 5.06879), "a2-ultragpu-2g": ("A100-80GB", 10.13758),
    "a2-ultragpu-4g": ("A100-80GB", 20.27517), "a2-ultragpu-8g": ("A100-80GB", 40.55034),
}
# GCP europe-west4 g2 sizes: us-central1 list x the REF g2-standard-4 ratio 0.74233/0.70683.
_G2_EU = 0.74233 / 0.70683
# GCP europe-west4 n1 + T4 sizes: us-central1 composed price x REF ratio 0.78584/0.73.
_N1_T4_EU = 0.78584 / 0.73

# Azure eastus list prices (2024-2025; not verified); other regions: see _azure_regions.
_AZURE_LIST = {
    "Standard_NC8as_T4_v3": ("T4", 0.752), "Standard_NC16as_T4_v3": ("T4", 1.204),
    "Standard_NC64as_T4_v3": ("T4", 4.352), "Standard_NV72ads_A10_v5": ("A10", 6.52),
    "Standard_NC48ads_A100_v4": ("A100-80GB", 7.346),
    "Standard_NC80adis_H100_v5": ("H100-NVL", 13.96),
}
# ND H200 v5: no public figure was at hand. Estimate = ND96isr_H100_v5 REF price (98.32) x the
# AWS p5en/p5 REF ratio (84.8/98.32) = 84.8, i.e. assumes Azure prices H200 against H100 as AWS
# did in the same snapshot. Weak: refresh from the Azure Retail Prices API before relying on it.
_ND_H200 = 84.8


def _ref_rows() -> list[Row]:
    rows: list[Row] = [(*r, REF, REF_AS_OF) for r in _REF]
    rows += [(*r, REF_PRECUT, REF_AS_OF) for r in _REF_PRECUT]
    return [_mapped(r) for r in rows]


def _mapped(row: Row) -> Row:
    cloud, region, itype, accel, od, spot, source, as_of = row
    if itype in ("p4d.24xlarge", "a2-highgpu-1g", "a2-highgpu-8g", "Standard_ND96asr_v4"):
        source += "; source name 'A100' = A100-40GB"
    elif itype == "a3-megagpu-8g":
        source += "; source name 'H100-MEGA' = H100"
    elif itype == "Standard_NC40ads_H100_v5":
        source += "; source name 'H100' = H100-NVL (NC H100 v5)"
    if cloud == "azure" and spot is None:
        source += "; spot price missing in source"
    if itype.startswith("p3."):
        source += "; seed 004 reports p3 retirement in Dec 2025: check availability"
    return (cloud, region, itype, accel, od, spot, source, as_of)


def _aws_rows() -> list[Row]:
    aws = LIST.format(cloud="AWS")
    rows: list[Row] = []
    for region in ("us-east-1", "us-west-2"):
        rows += [("aws", region, t, a, p, None, aws, LIST_AS_OF) for t, (a, p) in _AWS_LIST.items()]
    eu = f"{aws}; eu-west-1 = us-east-1 x {AWS_EU_FACTOR:.4f} (g5.xlarge eu/us list ratio)"
    rows += [("aws", "eu-west-1", t, a, round(p * AWS_EU_FACTOR, 4), None, eu, LIST_AS_OF)
             for t, (a, p) in _AWS_EU.items()]
    return [_mapped(r) for r in rows]


def _n1(vcpus: int, gpu_price: float, gpus: int) -> float:
    return round(vcpus * _N1_VCPU + _N1_MEM[vcpus] * _N1_GIB + gpus * gpu_price, 5)


def _gcp_rows() -> list[Row]:
    gcp = LIST.format(cloud="GCP")
    composed = gcp + "; host + GPUs composed from list component prices"
    rows: list[Row] = []
    for v, g in ((4, 1), (16, 2), (32, 4)):
        rows.append(("gcp", "us-central1", f"n1-standard-{v}", "T4", _n1(v, _T4, g), None,
                     composed, LIST_AS_OF))
        rows.append(("gcp", "europe-west4", f"n1-standard-{v}", "T4",
                     round(_n1(v, _T4, g) * _N1_T4_EU, 5), None,
                     composed + f"; x {_N1_T4_EU:.4f} (REF n1-standard-8+T4 eu/us ratio)",
                     LIST_AS_OF))
    for v, g in ((8, 1), (16, 2), (32, 4), (64, 8)):
        rows.append(("gcp", "us-central1", f"n1-standard-{v}", "V100", _n1(v, _V100, g), None,
                     composed, LIST_AS_OF))
    rows += [("gcp", "us-central1", t, a, p, None, gcp, LIST_AS_OF)
             for t, (a, p) in _GCP_LIST.items()]
    eu = gcp + f"; europe-west4 = us-central1 x {_G2_EU:.4f} (REF g2-standard-4 eu/us ratio)"
    rows += [("gcp", "europe-west4", t, a, round(p * _G2_EU, 5), None, eu, LIST_AS_OF)
             for t, (a, p) in _GCP_LIST.items() if t.startswith("g2-")]
    a3 = (f"{REF}-derived estimate: a3-highgpu-8g europe-west4 REF / {A3_EU_UPLIFT:.4f} "
          "(a3-megagpu eu/us REF ratio); not verified")
    rows.append(("gcp", "us-central1", "a3-highgpu-8g", "H100",
                 round(111.81719 / A3_EU_UPLIFT, 5), None, a3, REF_AS_OF))
    return rows


def _azure_rows() -> list[Row]:
    azure = LIST.format(cloud="Azure")
    rows: list[Row] = [("azure", "eastus", t, a, p, None, azure, LIST_AS_OF)
                       for t, (a, p) in _AZURE_LIST.items()]
    rows.append(("azure", "eastus", "Standard_ND96isr_H200_v5", "H200", _ND_H200, None,
                 f"{REF}-derived estimate: ND96isr_H100_v5 x AWS p5en/p5 ratio; not verified",
                 REF_AS_OF))
    return rows + _azure_regions(rows + [r for r in _ref_rows() if r[0] == "azure"])


# Second Azure regions: the eastus price, assumed equal (Azure usually prices these series
# alike across US regions); availability in the region not verified. westus2 for T4/A10,
# southcentralus for A100/H100/H200 (where Azure's ND/NC datacenter GPUs are commonly offered).
_AZURE_SECOND = {"T4": "westus2", "A10": "westus2", "A100-40GB": "southcentralus",
                 "A100-80GB": "southcentralus", "H100": "southcentralus",
                 "H100-NVL": "southcentralus", "H200": "southcentralus"}


def _azure_regions(eastus: list[Row]) -> list[Row]:
    out: list[Row] = []
    for _, _, itype, accel, od, _, _, _ in eastus:
        region = _AZURE_SECOND[accel]
        note = (f"{LIST.format(cloud='Azure')}; {region} assumed = eastus price {od}; "
                "region availability not verified")
        out.append(("azure", region, itype, accel, od, None, note, LIST_AS_OF))
    return out


PRICES: list[Row] = _ref_rows() + _aws_rows() + _gcp_rows() + _azure_rows()
