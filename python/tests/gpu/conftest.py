# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures of the GPU tests: one PE per process, launched by torchrun
(`torchrun --nproc-per-node 2 -m pytest python/tests/gpu`); python/tests/gpu/run_all.sh runs
them. Every test is collective: all ranks run the same tests in the same order."""
import os

import pytest

torch = pytest.importorskip("torch")


def pytest_collection_modifyitems(config, items):
    if not torch.cuda.is_available() or torch.cuda.device_count() < int(os.environ.get("LOCAL_WORLD_SIZE", "1")):
        skip = pytest.mark.skip(reason="needs one CUDA GPU per process")
        for item in items:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def pe():
    """(rank, world size, device) with torch.distributed (NCCL, for the reference results) and
    gshmem started; finalized at the end."""
    import torch.distributed as dist

    import gshmem.torch as gt
    if "RANK" not in os.environ:  # plain pytest: a job of one
        os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1",
                          MASTER_PORT=str(29500 + os.getpid() % 1000))
    dev = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=dev)
    got = gt.init()
    assert got == dev
    yield dist.get_rank(), dist.get_world_size(), dev
    gt.release_workspaces()
    gt.finalize()
    dist.destroy_process_group()
