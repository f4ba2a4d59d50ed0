"""How a container can get (part of) an accelerator in Kubernetes, as data.

One row per NVIDIA sharing mode and one per other vendor's device plugin: the extended
resource name(s) the container requests, what the mode isolates and what it does not, and the
documents that say so. Sentences are English marked for translation (gettext_noop).
"""

from __future__ import annotations

from designer.k8s.core import gettext_noop

K8S_GPUS = "https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/"
DEVICE_PLUGIN = "https://github.com/NVIDIA/k8s-device-plugin#shared-access-to-gpus"
OPERATOR_MIG = (
    "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html"
)
OPERATOR_TIME_SLICING = (
    "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-sharing.html"
)
OPERATOR_MPS = (
    "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-sharing-mps.html"
)
MIG_GUIDE = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/"
CUDA_MPS = "https://docs.nvidia.com/deploy/mps/index.html"

# key -> dict(choices, node_choices, label, resources, isolates, does_not_isolate, notes,
# sources)
SHARING_MODES: dict[str, dict[str, object]] = {
    "whole": {
        # The fields of the GPU choice (design.planning.GpuChoice) this mode uses.
        "choices": (),
        "label": gettext_noop("Whole GPUs"),
        "resources": ("nvidia.com/gpu",),
        "isolates": (gettext_noop("Everything: the GPU is given to one container only."),),
        "does_not_isolate": (),
        "notes": (
            gettext_noop(
                "Containers do not share GPUs and GPUs cannot be overcommitted; a container asks "
                "for a whole number of them, set as a limit (the request defaults to it)."
            ),
        ),
        "sources": (K8S_GPUS,),
    },
    "mig-single": {
        # The fields of the GPU choice (design.planning.GpuChoice) this mode uses.
        "choices": ("model", "memory_gb", "profile"),
        "label": gettext_noop("MIG, single strategy"),
        "resources": ("nvidia.com/gpu",),
        "isolates": (
            gettext_noop(
                "Memory, streaming multiprocessors, L2 cache and memory bandwidth are partitioned "
                "in hardware; a fault in one MIG instance does not affect the others."
            ),
        ),
        "does_not_isolate": (),
        "notes": (
            gettext_noop(
                "Every GPU on the node is split into the same profile and each slice is "
                "advertised as nvidia.com/gpu, so the pod cannot tell a slice from a whole GPU "
                "by its request."
            ),
        ),
        "sources": (OPERATOR_MIG, MIG_GUIDE),
    },
    "mig-mixed": {
        # The fields of the GPU choice (design.planning.GpuChoice) this mode uses.
        "choices": ("model", "memory_gb", "profile"),
        # The node's MIG layout (design.planning.NodeChoice): which slices each GPU has.
        "node_choices": ("mig_layout",),
        "label": gettext_noop("MIG, mixed strategy"),
        "resources": ("nvidia.com/mig-<profile>",),
        "isolates": (
            gettext_noop(
                "Memory, streaming multiprocessors, L2 cache and memory bandwidth are partitioned "
                "in hardware; a fault in one MIG instance does not affect the others."
            ),
        ),
        "does_not_isolate": (),
        "notes": (
            gettext_noop(
                "Each profile is its own resource, such as nvidia.com/mig-1g.10gb; GPUs on one "
                "node may use different profiles."
            ),
        ),
        "sources": (OPERATOR_MIG, MIG_GUIDE),
    },
    "time-slicing": {
        # The fields of the GPU choice (design.planning.GpuChoice) this mode uses.
        "choices": ("rename_shared",),
        # The replicas per GPU of the device plugin's sharing configuration.
        "node_choices": ("gpu_replicas",),
        "label": gettext_noop("Time-slicing"),
        "resources": ("nvidia.com/gpu", "nvidia.com/gpu.shared"),
        "isolates": (),
        "does_not_isolate": (
            gettext_noop("Memory: every workload sees and can fill all of the GPU's memory."),
            gettext_noop(
                "Faults: all workloads share one fault domain; if one crashes, they all do."
            ),
            gettext_noop(
                "Compute: CUDA gives every process an equal time share; asking for more replicas "
                "does not buy more compute."
            ),
        ),
        "notes": (
            gettext_noop(
                "Each GPU is advertised as several replicas of nvidia.com/gpu, or of "
                "nvidia.com/gpu.shared when the device plugin sets renameByDefault."
            ),
        ),
        "sources": (DEVICE_PLUGIN, OPERATOR_TIME_SLICING),
    },
    "mps": {
        # The fields of the GPU choice (design.planning.GpuChoice) this mode uses.
        "choices": ("rename_shared",),
        # The replicas per GPU of the device plugin's sharing configuration.
        "node_choices": ("gpu_replicas",),
        "label": gettext_noop("MPS (Multi-Process Service)"),
        "resources": ("nvidia.com/gpu", "nvidia.com/gpu.shared"),
        "isolates": (
            gettext_noop(
                "Memory and compute: each replica is limited to an equal fraction of the GPU's "
                "memory and compute."
            ),
        ),
        "does_not_isolate": (
            gettext_noop(
                "Faults: a fatal GPU exception raised by one client is delivered to every client "
                "sharing that GPU."
            ),
        ),
        "notes": (
            gettext_noop(
                "Only whole GPUs can be shared with MPS (not MIG slices), and a container may "
                "request only one replica."
            ),
        ),
        "sources": (DEVICE_PLUGIN, OPERATOR_MPS, CUDA_MPS),
    },
}

# key -> dict(label, resources, notes, source). Whole devices only: none of these plugins
# hands out a fraction of a device through the resource count.
VENDORS: dict[str, dict[str, object]] = {
    "nvidia": {
        "label": "NVIDIA",
        "resources": ("nvidia.com/gpu",),
        "plugin": gettext_noop("the NVIDIA device plugin (or the NVIDIA GPU operator)"),
        "source": "https://github.com/NVIDIA/k8s-device-plugin",
    },
    "amd": {
        "label": "AMD",
        "resources": ("amd.com/gpu",),
        "plugin": gettext_noop("the AMD GPU device plugin (or the AMD GPU operator)"),
        "source": "https://instinct.docs.amd.com/projects/k8s-device-plugin/en/latest/",
    },
    "intel-i915": {
        "label": "Intel (i915 driver)",
        "resources": ("gpu.intel.com/i915",),
        "plugin": gettext_noop("the Intel GPU device plugin"),
        "source": "https://intel.github.io/intel-device-plugins-for-kubernetes/cmd/gpu_plugin/README.html",
    },
    "intel-xe": {
        "label": "Intel (xe driver)",
        "resources": ("gpu.intel.com/xe",),
        "plugin": gettext_noop("the Intel GPU device plugin"),
        "source": "https://intel.github.io/intel-device-plugins-for-kubernetes/cmd/gpu_plugin/README.html",
    },
    "aws-neuron": {
        "label": "AWS Inferentia/Trainium (whole Neuron devices)",
        "resources": ("aws.amazon.com/neuron",),
        "plugin": gettext_noop("the AWS Neuron device plugin"),
        "source": "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/containers/tutorials/k8s-neuron-device-plugin.html",
    },
    "aws-neuroncore": {
        "label": "AWS Inferentia/Trainium (NeuronCores)",
        "resources": ("aws.amazon.com/neuroncore",),
        "plugin": gettext_noop("the AWS Neuron device plugin"),
        "source": "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/containers/tutorials/k8s-neuron-device-plugin.html",
    },
    "habana": {
        "label": "Intel Gaudi (Habana)",
        "resources": ("habana.ai/gaudi",),
        "plugin": gettext_noop("the Intel Gaudi device plugin"),
        "source": "https://docs.habana.ai/en/latest/Orchestration/Gaudi_Kubernetes/Habana_Device_Plugin_for_Kubernetes.html",
    },
}
