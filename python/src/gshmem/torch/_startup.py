# SPDX-License-Identifier: BSD-3-Clause
"""Start-up the way PyTorch programs launch: torchrun's environment picks the GPU, and an
initialized torch.distributed process group (or any c10d Store) carries gshmem's unique id from
rank 0 to the others, so that no second rendezvous port needs configuring."""
import datetime
import os
import time

import torch

from .. import runtime as _runtime
from ..errors import BootstrapError, InvalidValueError

# Keys are per start-up (init, finalize, init again meets on a new key); every rank counts its
# own calls, which agree because start-up is collective.
_generation = [0]
DEFAULT_TIMEOUT = datetime.timedelta(minutes=5)


def select_device(device=None):
    """The torch.device this PE drives: `device` if given, else cuda:$LOCAL_RANK (torchrun,
    gshmrun and Slurm set it; SLURM_LOCALID too), else the current CUDA device. It is made
    current with its context created, so that gshmem's start-up finds it."""
    if device is None:
        local = os.environ.get("LOCAL_RANK", os.environ.get("SLURM_LOCALID"))
        if local is not None and torch.cuda.is_available():
            count = torch.cuda.device_count()
            device = torch.device("cuda", int(local) % count) if count else None
    if device is None:
        device = torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else None
    if device is None:
        return None
    device = torch.device(device)
    if device.type != "cuda":
        raise InvalidValueError("gshmem.torch.init", f"device {device} is not a CUDA device; gshmem drives one GPU "
                                "per process (pass device='cuda:N' or leave it to LOCAL_RANK)")
    torch.cuda.set_device(device)
    torch.empty(1, device=device)  # the primary context exists and is current on this thread
    return device


def exchange_unique_id(store, rank, world_size, *, key="gshmem/uid", timeout=DEFAULT_TIMEOUT):
    """Rank 0 makes a UniqueId and publishes it in `store` (a torch.distributed Store) under
    `key`; every rank returns it. Raises BootstrapError naming what to check when rank 0 does not
    publish within `timeout`."""
    from ..runtime import UniqueId, get_unique_id
    if not 0 <= rank < world_size:
        raise InvalidValueError("gshmem.torch.init", f"rank {rank} is outside 0..{world_size - 1}")
    if rank == 0:
        uid = get_unique_id()
        store.set(key, bytes(uid))
        return uid
    if not isinstance(timeout, datetime.timedelta):
        timeout = datetime.timedelta(seconds=float(timeout))
    start = time.monotonic()
    try:
        store.wait([key], timeout)
    except Exception as e:  # c10d raises its own DistStoreError/DistNetworkError/RuntimeError
        # A lost connection (the store's server, usually rank 0, is gone) fails before the
        # timeout: saying "within <timeout>" then would send the user after the wrong cause.
        # (The time tells them apart where torch's exception classes do not.)
        waited = time.monotonic() - start
        lost = (isinstance(e, getattr(torch.distributed, "DistNetworkError", ())) or
                waited < 0.9 * timeout.total_seconds())
        what = (f"lost its connection to the store after {waited:.1f} s, before rank 0 published gshmem's "
                "unique id" if lost else
                f"rank 0 did not publish gshmem's unique id within {timeout.total_seconds():g} s")
        detail = (str(e).strip().splitlines() or [type(e).__name__])[0]  # c10d may append a C++ stack
        raise BootstrapError("gshmem.torch.init", f"rank {rank} of {world_size}: {what} (store key {key!r}: "
                             f"{detail}). Every rank must call gshmem.torch.init (or gshmem.init) together; "
                             "check that rank 0 is alive and did not fail first") from None
    return UniqueId(store.get(key))


def init(group=None, *, store=None, rank=None, world_size=None, device=None, timeout=DEFAULT_TIMEOUT):
    """Start gshmem for a PyTorch program (collective over the group's ranks).

    - torch.distributed initialized (or `group` given): the PEs are `group`'s ranks (default:
      the world group) and gshmem's unique id travels through its store: no second port.
    - `store` (any c10d Store, e.g. TCPStore) with `rank` and `world_size`: the same, without a
      process group.
    - neither: the launcher's environment (torchrun, gshmrun, mpirun, srun), as gshmem.init().
    The GPU: `device`, else cuda:$LOCAL_RANK, else the current device. Returns the device."""
    dev = select_device(device)
    tag = "world"
    if store is None:
        dist = torch.distributed
        if dist.is_available() and dist.is_initialized():
            group = group or dist.group.WORLD
            rank, world_size = dist.get_rank(group), dist.get_world_size(group)
            if rank < 0:
                raise InvalidValueError("gshmem.torch.init", "this process is not a member of `group`; only "
                                        "its members call")
            ranks = dist.get_process_group_ranks(group)
            tag = "g" + "_".join(map(str, ranks[:4])) + f"_n{len(ranks)}"
            store = dist.distributed_c10d._get_default_store()
        elif group is not None:
            raise InvalidValueError("gshmem.torch.init", "`group` was given but torch.distributed is not "
                                    "initialized; call torch.distributed.init_process_group first")
    if store is None:
        if rank is not None or world_size is not None:
            raise InvalidValueError("gshmem.torch.init", "rank/world_size need a `store` to meet through")
        _runtime.init()
        return dev
    if rank is None or world_size is None:
        raise InvalidValueError("gshmem.torch.init", "with `store`, pass rank and world_size too")
    _generation[0] += 1
    uid = exchange_unique_id(store, rank, world_size, key=f"gshmem/uid/{tag}/{_generation[0]}", timeout=timeout)
    _runtime.init(uid=uid, rank=rank, world_size=world_size)
    return dev
