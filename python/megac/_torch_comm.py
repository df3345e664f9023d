"""The runtime's Communicator over torch.distributed (imported by megac.slots on first use)."""
from ._runtime import Communicator


class TorchDistributedCommunicator(Communicator):
    """Agrees on slot decisions through torch.distributed: all_reduce(MIN) of an int32 tensor.

    group   the process group (None: the default group); torch.distributed must be initialized
    device  where the decision tensor lives; default: the current CUDA device for the NCCL backend, else CPU
    """

    def __init__(self, group=None, device=None):
        super().__init__()
        import torch
        import torch.distributed as dist
        if not dist.is_available() or not dist.is_initialized():
            raise RuntimeError("megac: TorchDistributedCommunicator needs torch.distributed initialized "
                               "(torch.distributed.init_process_group)")
        self._torch, self._dist, self.group = torch, dist, group
        if device is None:
            backend = str(dist.get_backend(group)).lower()
            device = (torch.device("cuda", torch.cuda.current_device()) if "nccl" in backend
                      else torch.device("cpu"))
        self.device = torch.device(device)

    def rank(self):
        return self._dist.get_rank(self.group)

    def size(self):
        return self._dist.get_world_size(self.group)

    def all_reduce_min(self, values):
        t = self._torch.tensor(list(values), dtype=self._torch.int32, device=self.device)
        self._dist.all_reduce(t, op=self._dist.ReduceOp.MIN, group=self.group)
        return [int(v) for v in t.tolist()]
