"""Many chat requests at once, up to a concurrency limit, each result handed back as it arrives.

Threads, not asyncio or processes. The caller is usually a Celery task in a prefork child: a
daemonic process, which may not start ``multiprocessing`` children. asyncio would work there,
but the caller stores each result with Django's ORM, which refuses to run inside an event
loop, so every result would have to cross back to synchronous code anyway. The work is
waiting on sockets, which releases the GIL, so a few dozen threads cost little: each request
runs in a pool thread, and results are yielded in the caller's own thread, which keeps its
database connection and receives Celery's time-limit signals. Requests are taken from the
input one at a time as slots free up, so a run of 100,000 prompts holds only ``concurrency``
of them in memory, and a cancelled run sends nothing more.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace

from grading.llm.endpoint import EndpointClient, SamplingParams
from grading.llm.errors import EndpointError
from grading.llm.responses import Completion


@dataclass(frozen=True)
class ChatRequest:
    """One prompt and the samples of it still wanted; ``key`` is the caller's (a problem id)."""

    key: Hashable
    messages: tuple[Mapping[str, str], ...]
    samples: tuple[int, ...] = (0,)

    def __post_init__(self) -> None:
        if not self.samples:
            raise ValueError(f"request {self.key!r} asks for no samples")
        if len(set(self.samples)) != len(self.samples):
            raise ValueError(f"request {self.key!r} asks for a sample twice: {self.samples}")


@dataclass(frozen=True)
class ChatOutcome:
    """What one HTTP request brought: some or all of its samples, or the error that ended it."""

    request: ChatRequest
    completions: tuple[Completion, ...] = ()
    error: EndpointError | None = None


def complete_many(
    client: EndpointClient,
    requests: Iterable[ChatRequest],
    *,
    concurrency: int,
    sampling: SamplingParams | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[ChatOutcome]:
    """Send ``requests`` with at most ``concurrency`` in flight; yield each outcome as it lands.

    Samples a server did not return (it ignores ``n``) are asked for again in a follow-up
    request, sent before any new prompt; each outcome carries the samples it answered, so no
    sample is yielded twice. A request that fails for good is yielded with its error and the
    rest go on. ``cancelled`` is checked before sending more: once it returns True nothing new
    is sent, and the requests in flight are still yielded.
    """
    for landed in _landed(client, requests, concurrency, sampling, cancelled, early=False):
        yield from landed


def complete_many_batched(
    client: EndpointClient,
    requests: Iterable[ChatRequest],
    *,
    concurrency: int,
    sampling: SamplingParams | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[list[ChatOutcome]]:
    """``complete_many``, yielding together the outcomes that landed while the caller was
    busy with the previous ones: a caller that stores each batch in one transaction keeps up
    with a high concurrency, and still stores each outcome as soon as it is free to.

    The slots a batch freed are filled before the batch is handed over, so requests are in
    flight while the caller stores; a cancel decided on seeing a batch therefore stops the
    requests after the ones sent then (at most ``concurrency`` more).
    """
    yield from _landed(client, requests, concurrency, sampling, cancelled, early=True)


def _landed(
    client: EndpointClient,
    requests: Iterable[ChatRequest],
    concurrency: int,
    sampling: SamplingParams | None,
    cancelled: Callable[[], bool],
    *,
    early: bool,
) -> Iterator[list[ChatOutcome]]:
    """The outcomes of each wait; with ``early``, free slots are refilled before yielding."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    pending = iter(requests)
    follow_ups: deque[ChatRequest] = deque()
    in_flight: dict[Future, ChatRequest] = {}
    executor = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="llm-request")

    def refill() -> None:
        if cancelled():
            return
        while len(in_flight) < concurrency:
            request = follow_ups.popleft() if follow_ups else next(pending, None)
            if request is None:
                break
            future = executor.submit(
                client.chat, request.messages, sampling, samples=request.samples
            )
            in_flight[future] = request

    try:
        while True:
            refill()
            if not in_flight:
                return
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            landed = []
            for future in done:
                request = in_flight.pop(future)
                try:
                    completions = future.result()
                except EndpointError as error:
                    landed.append(ChatOutcome(request=request, error=error))
                    continue
                answered = {completion.sample for completion in completions}
                missing = tuple(s for s in request.samples if s not in answered)
                if missing:
                    follow_ups.append(replace(request, samples=missing))
                landed.append(ChatOutcome(request=request, completions=completions))
            if early:  # the freed slots work while the caller stores what landed
                refill()
            yield landed
    finally:
        # A caller that stops early (or a time limit) leaves the threads in flight to finish
        # their one request; nothing queued is sent.
        executor.shutdown(wait=False, cancel_futures=True)
