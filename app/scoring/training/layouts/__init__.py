"""The parallel layout a training run takes on its GPUs: what a layout holds per GPU (memory: model states,
activations, logits and reserve; optimizer: the state recipe and its CPU offload; lora_adapters: the trained
adapters), the layouts a job may use and the fastest that fits (choice), and the settings that would make a run fit
where it fits nowhere (frugal_settings)."""
