"""What waiting for results costs the client of a dask run, for each way of waiting.

    python benchmarks/bench_dispatch_wait.py [--rounds 3] [--long 4] [--short 40]

A ``distributed.LocalCluster`` of one worker process with one thread runs, through
:class:`ordauc.experiment.dispatch.Dispatch`, one task that sleeps ``--long`` seconds and then
``--short`` tasks that return at once; the client's watch is a stand-in that asks nothing of
the scheduler, so that only the waiting is measured. Three ways of waiting up to a tick for the
next result, alternated in each round:

- ``poll``: ordauc's (``as_completed.has_ready`` asked every few milliseconds);
- ``condition``: the way before, on ``as_completed.thread_condition`` (not a documented part
  of dask);
- ``wait``: ``distributed.wait(..., timeout=tick, return_when="FIRST_COMPLETED")``.

For each: the CPU time of this process (the client and its event-loop thread) over the run,
and the asyncio tasks on the client's loop at the end of the long task's wait (``wait`` leaves
one behind per future still out, at every tick that passes without a result).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass
from typing import Any

from ordauc.experiment import dispatch as dispatch_module
from ordauc.experiment.dispatch import Dispatch


@dataclass(frozen=True)
class _Task:
    cells: tuple[int, ...]
    data: None
    seconds: float


def _nap(task: _Task) -> float:
    time.sleep(task.seconds)
    return task.seconds


class _Watch:
    def __init__(self, client: Any) -> None:
        self.client, self.on_workers, self.loop_tasks = client, set(), 0

    def look(self, waiting: int) -> int:
        return 1

    def show(self, on_workers: int) -> None:
        pass


async def _count_tasks() -> int:
    return len(asyncio.all_tasks())


class _Condition(Dispatch):
    def _ready(self) -> list[Any]:
        done = self.done
        with done.thread_condition:
            if not done.has_ready():
                done.thread_condition.wait(timeout=dispatch_module.TICK_S)
        return list(done.next_batch(block=False))


class _Wait(Dispatch):
    def _ready(self) -> list[Any]:
        from concurrent.futures import CancelledError

        from distributed import wait

        if not self.futures:
            time.sleep(dispatch_module.TICK_S)
            return []
        try:
            with self.client.as_current():
                wait(list(self.futures), timeout=dispatch_module.TICK_S,
                     return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        except CancelledError:
            pass
        return [f for f in self.futures if f.done()]


VARIANTS = {"poll": Dispatch, "condition": _Condition, "wait": _Wait}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--long", type=float, default=4.0)
    parser.add_argument("--short", type=int, default=40)
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    tasks = [_Task((0,), None, args.long)] + [_Task((i,), None, 0.0)
                                              for i in range(1, args.short + 1)]
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    loop_tasks: dict[str, list[int]] = {name: [] for name in VARIANTS}
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        for _ in range(args.rounds):
            for name, cls in VARIANTS.items():
                watch = _Watch(client)
                dispatch = cls(client, _nap, lambda task, message: None, watch)
                before = time.process_time()
                for out in dispatch.run(tasks):
                    if out == args.long:  # the long task is back: count what its wait left
                        loop_tasks[name].append(client.sync(_count_tasks))
                cpu[name].append(time.process_time() - before)
    for name in VARIANTS:
        print(f"{name:9}  CPU s per run: {', '.join(f'{s:.3f}' for s in cpu[name])}  "
              f"(least {min(cpu[name]):.3f});  loop tasks after the long wait: "
              f"{loop_tasks[name]}")


if __name__ == "__main__":
    main()
