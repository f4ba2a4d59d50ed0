"""MIG GPU-instance profiles per GPU model, as data.

Sources:

* NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles"
  (MIG_GUIDE below; one section per GPU family). The guide prints the full A100-40GB table and
  says that on the 80GB boards the names scale with the memory (1g.10gb, 1g.20gb, 2g.20gb,
  3g.40gb, 4g.40gb, 7g.80gb).
* NVIDIA mig-parted's default configuration (MIG_PARTED below), which the GPU operator's MIG
  manager applies: one ``all-<profile>`` entry per profile with the number of instances that
  fill one GPU, and the device IDs each applies to. The instance counts below are read from it.

Each tuple is ``(name, compute_slices, max_instances_per_gpu)``; the memory in GB is the number
in the name; where an instance may sit on the GPU is in MIG_PLACEMENTS. Media-extension
variants (``+me``, one per GPU) are left out: they are the same slice with the video decoders
attached and never the smallest fit.

GB in profile names: NVIDIA's nominal size, derived from the board's marketed capacity split
into 8 memory slices and rounded (A100 40GB -> 5gb per slice). GPU memory is built from HBM
stacks of binary size, so the "GB" of a GPU's marketing is in practice a binary gigabyte; the
usable memory a profile shows in ``nvidia-smi mig -lgip`` is a few percent below the nominal
number (A100-40GB 3g.20gb: 19.50-19.62 GiB depending on the driver).
"""

from __future__ import annotations

MIG_GUIDE = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
MIG_PARTED = (
    "https://github.com/NVIDIA/mig-parted/blob/main/deployments/systemd/config-default.yaml"
)

# key -> (label, board memory GB, source section, profiles)
MIG_MODELS: dict[str, tuple[str, int, str, tuple[tuple[str, int, int], ...]]] = {
    "a100-40gb": (
        "NVIDIA A100 40GB",
        40,
        f"{MIG_GUIDE} (A100 MIG Profiles, A100-SXM4-40GB table); {MIG_PARTED}",
        (
            ("1g.5gb", 1, 7),
            ("1g.10gb", 1, 4),
            ("2g.10gb", 2, 3),
            ("3g.20gb", 3, 2),
            ("4g.20gb", 4, 1),
            ("7g.40gb", 7, 1),
        ),
    ),
    "a100-80gb": (
        "NVIDIA A100 80GB",
        80,
        f"{MIG_GUIDE} (A100 MIG Profiles, A100-SXM4-80GB names); {MIG_PARTED}",
        (
            ("1g.10gb", 1, 7),
            ("1g.20gb", 1, 4),
            ("2g.20gb", 2, 3),
            ("3g.40gb", 3, 2),
            ("4g.40gb", 4, 1),
            ("7g.80gb", 7, 1),
        ),
    ),
    "h100-80gb": (
        "NVIDIA H100 80GB",
        80,
        f"{MIG_GUIDE} (H100 MIG Profiles); {MIG_PARTED} (H100-80GB entries)",
        (
            ("1g.10gb", 1, 7),
            ("1g.20gb", 1, 4),
            ("2g.20gb", 2, 3),
            ("3g.40gb", 3, 2),
            ("4g.40gb", 4, 1),
            ("7g.80gb", 7, 1),
        ),
    ),
    "h100-nvl-94gb": (
        "NVIDIA H100 NVL 94GB",
        94,
        f"{MIG_GUIDE} (H100 MIG Profiles, 94GB); {MIG_PARTED} (H100 NVL entries)",
        (
            ("1g.12gb", 1, 7),
            ("1g.24gb", 1, 4),
            ("2g.24gb", 2, 3),
            ("3g.47gb", 3, 2),
            ("4g.47gb", 4, 1),
            ("7g.94gb", 7, 1),
        ),
    ),
    "h200-141gb": (
        "NVIDIA H200 141GB",
        141,
        f"{MIG_GUIDE} (H200 MIG Profiles); {MIG_PARTED} (H200-141GB entries)",
        (
            ("1g.18gb", 1, 7),
            ("1g.35gb", 1, 4),
            ("2g.35gb", 2, 3),
            ("3g.71gb", 3, 2),
            ("4g.71gb", 4, 1),
            ("7g.141gb", 7, 1),
        ),
    ),
    "b200-180gb": (
        "NVIDIA B200 180GB",
        180,
        f"{MIG_GUIDE} (B200 MIG Profiles); {MIG_PARTED} (B200 entries)",
        (
            ("1g.23gb", 1, 7),
            ("1g.45gb", 1, 4),
            ("2g.45gb", 2, 3),
            ("3g.90gb", 3, 2),
            ("4g.90gb", 4, 1),
            ("7g.180gb", 7, 1),
        ),
    ),
}

# What users type for each model (compared after dropping case, spaces, dashes, underscores).
MIG_MODEL_ALIASES: dict[str, str] = {
    "a100": "a100-40gb",
    "a10040gb": "a100-40gb",
    "a100sxm440gb": "a100-40gb",
    "a100pcie40gb": "a100-40gb",
    "a10080gb": "a100-80gb",
    "a100sxm480gb": "a100-80gb",
    "a100pcie80gb": "a100-80gb",
    "h100": "h100-80gb",
    "h10080gb": "h100-80gb",
    "h100sxm580gb": "h100-80gb",
    "h100pcie80gb": "h100-80gb",
    "h100nvl": "h100-nvl-94gb",
    "h100nvl94gb": "h100-nvl-94gb",
    "h10094gb": "h100-nvl-94gb",
    "h200": "h200-141gb",
    "h200141gb": "h200-141gb",
    "h200nvl": "h200-141gb",
    "b200": "b200-180gb",
    "b200180gb": "b200-180gb",
}


# Where a GPU instance may start among the 8 memory slices of a GPU, and how many it takes, by
# its place in each model's table above (the same on every model listed): what
# ``nvidia-smi mig -lgipp`` prints as ``Placements: {0,2,4,6}:2`` (for the A100 80GB: profile
# 19 {0..6}:1, 15 {0,2,4,6}:2, 14 {0,2,4}:2, 9 {0,4}:4, 5 {0}:4, 0 {0}:8), see MIG_GUIDE
# ("GPU Instance Placements"). Two instances on one GPU must not share a memory slice.
MIG_PLACEMENTS_SOURCE = f"{MIG_GUIDE} (nvidia-smi mig -lgipp)"
MIG_PLACEMENTS: tuple[tuple[tuple[int, ...], int], ...] = (
    ((0, 1, 2, 3, 4, 5, 6), 1),  # 1g, 1 memory slice (1g.10gb on an 80GB board)
    ((0, 2, 4, 6), 2),  # 1g, 2 memory slices (1g.20gb)
    ((0, 2, 4), 2),  # 2g (2g.20gb)
    ((0, 4), 4),  # 3g (3g.40gb)
    ((0,), 4),  # 4g (4g.40gb)
    ((0,), 8),  # 7g, the whole GPU (7g.80gb)
)

# mig-parted's "all-balanced" configuration: per GPU, 2 of the smallest 1g profile, one 2g and
# one 3g (config-default.yaml), by the profiles' places in the tables above.
MIG_BALANCED: tuple[tuple[int, int], ...] = ((0, 2), (2, 1), (3, 1))
