"""Where a run's methods get video frames: each frame decoded once, encoded once, shared.

A `FrameRequest` names frames without decoding them: the video's content digest, the exact
frame numbers, the resize and the encoding (`identity`), and what a method draws on them (an
`Overlay`: hints' marks), if anything. The `FrameProvider` of a run answers requests from, in
order:

1. frames this run already has (samples asking for the same frames share one decode, with or
   without the store);
2. the frame store (`video.FrameStore`), where encoded frames and strips outlive the run;
3. a decode job (`_frame_jobs.run_job`): one forward pass over the video for the frames of
   every request it was given, in a worker process when the runner gives the provider a pool.

The runner plans ahead (`plan`, `prefetch`, `release`): it hands the provider the requests of
the samples about to run, video by video, so one job decodes what several samples want, while
the frames held for samples not yet finished stay under `max_frames_in_flight` (prefetching
waits for room: back-pressure).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter, OrderedDict
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import BrokenExecutor, Executor
from dataclasses import dataclass, replace
from typing import Any

from vqakit.methods._frame_jobs import DecodeJob, Drawing, JobResult, job_chunks, run_job, strip_of
from vqakit.methods._requests import FrameRequest, joined_identity
from vqakit.schema import SamplingSpec
from vqakit.video import FrameStore, Resize, Sampled, content_digest, remember_duration

log = logging.getLogger(__name__)

# frames a run's decode jobs take in threads before it asks for worker processes: starting one
# costs about as much CPU as decoding and encoding ~100 frames, so a run with a few frames per
# video (most benchmarks' first videos) never pays for them
PROCESS_FRAMES = 256
RECENT_BYTES = 64 * 2**20  # frames kept for reuse after their planned samples are done
RECENT_STRIPS = 256  # strips kept for samples that ask for them again


def _size(image: Any) -> int:
    data = getattr(image, "data", None)
    return len(data) if isinstance(data, bytes) else int(getattr(image, "nbytes", 0))


@dataclass
class FrameStats:
    decoded: int = 0  # frames decoded by this provider's jobs
    jobs: int = 0
    from_store: int = 0  # frames read from the store
    strips_from_store: int = 0


class FrameProvider:
    """A run's frames. `store=None` keeps nothing between runs; `executor` (a process pool, or a
    function that gives one, or None while it is not ready) runs the decode jobs of encoded
    frames; without one they run in threads."""

    def __init__(
        self,
        store: FrameStore | None = None,
        executor: Executor | Callable[[], Executor | None] | None = None,
        *,
        max_frames_in_flight: int = 512,
    ) -> None:
        self.store = store
        self.executor = executor
        self.max_frames_in_flight = max(1, max_frames_in_flight)
        self.stats = FrameStats()
        self._frames: dict[str, asyncio.Future] = {}
        self._strips: OrderedDict[str, asyncio.Future] = OrderedDict()
        self._tasks: set[asyncio.Task] = set()
        self._wanted: Counter[str] = Counter()  # planned uses not yet released, per frame key
        self._counted: set[str] = set()  # frame keys counted as in flight
        self._recent: OrderedDict[str, int] = OrderedDict()  # released keys kept, with their size
        self._recent_bytes = 0
        self._room: asyncio.Condition | None = None
        self._requests: dict[tuple, FrameRequest] = {}
        self._decoding = 0  # frames given to decode jobs so far

    # --- naming frames ----------------------------------------------------------------------

    def request(
        self, path: str, spec: SamplingSpec, resize: Resize | None, encoding: dict[str, Any] | None
    ) -> FrameRequest:
        """The frames `spec` asks of the video at `path` (exact frames); VideoError when the video
        cannot be read or the spec does not fit it. Reads the video's packets, decodes nothing."""
        key = (str(path), spec, resize, json.dumps(encoding, sort_keys=True))
        found = self._requests.get(key)
        if found is not None:
            return found
        sampled = self._sampled(path, spec)
        found = FrameRequest(
            path=str(path),
            digest=sampled.digest,
            numbers=tuple(sampled.numbers),
            times_s=tuple(sampled.times_s),
            resize=resize,
            encoding=encoding,
        )
        if len(self._requests) > 4096:
            self._requests.clear()
        self._requests[key] = found
        return found

    def known(
        self, path: str, spec: SamplingSpec, resize: Resize | None, encoding: dict[str, Any] | None
    ) -> FrameRequest | None:
        """The request `request` would give, when this provider has made it already (the runner
        plans ahead): no file is read, so the event loop may ask."""
        return self._requests.get((str(path), spec, resize, json.dumps(encoding, sort_keys=True)))

    def _sampled(self, path: str, spec: SamplingSpec) -> Sampled:
        """What `spec` picks from the video: from the store when this version of the video was
        sampled so before (a re-run indexes nothing), else from its frame index (which reads
        every packet of the file)."""
        if self.store is not None and (kept := self.store.sampled(path, repr(spec))) is not None:
            remember_duration(path, kept.duration_s)  # the run's length groups need no probe
            return kept
        from vqakit.video import picked_frames  # PyAV: imported when a video is read

        index, picked = picked_frames(path, spec)
        found = Sampled(
            digest=self.store.digest(path) if self.store is not None else content_digest(path),
            numbers=[int(n) for n in picked],
            times_s=[float(index.times_s[n]) for n in picked],
            duration_s=index.duration_s,
        )
        if self.store is not None:
            self.store.keep_sampled(path, repr(spec), found)
        return found

    # --- getting frames ---------------------------------------------------------------------

    async def images(self, request: FrameRequest) -> tuple[Any, ...]:
        """The frames as sent (EncodedImages, or RGB arrays when `encoding` is None), in order."""
        missing = [key for key in dict.fromkeys(request.frame_keys) if key not in self._frames]
        claimed = self._claim(missing)
        # taken before any await: while this request's frames are filled, frames kept only as
        # recent may be let go (`_keep_recent`), this request's among them
        futures = [self._frames[key] for key in request.frame_keys]
        if claimed:
            await self._fill([request], claimed, strips=())
        for key in missing:
            if self._wanted.get(key, 0) <= 0:  # not planned: kept while there is room
                self._keep_recent(key)
        return tuple([await future for future in futures])

    async def strip(self, request: FrameRequest, *more: FrameRequest) -> bytes:
        """The strip of the requests' frames as sent, side by side in order (JPEG bytes), made
        once per identity (and kept in the store)."""
        requests = (request, *more)
        key = request.strip_key if not more else "strip:" + joined_identity(requests)
        future = self._strips.get(key)
        if future is None:
            future = self._strips[key] = asyncio.get_running_loop().create_future()
            while len(self._strips) > RECENT_STRIPS:
                self._strips.popitem(last=False)
            try:
                future.set_result(await self._make_strip(requests, key))
            except Exception as error:
                future.set_exception(error)
                future.exception()  # retrieved: the caller raises it below
        return await future

    async def _make_strip(self, requests: tuple[FrameRequest, ...], key: str) -> bytes:
        storable = self.store is not None and all(r.encoding is not None for r in requests)
        if storable:
            held = await asyncio.to_thread(self.store.get_many, [key])
            if key in held:
                self.stats.strips_from_store += 1
                return held[key][0]
        images = [image for request in requests for image in await self.images(request)]
        data = await asyncio.to_thread(strip_of, images)
        if storable:
            await asyncio.to_thread(self.store.put_many, [(key, data, 0, 0)])
        return data

    def _claim(self, keys: Iterable[str]) -> dict[str, asyncio.Future]:
        """Futures for the keys nobody is getting yet; the caller answers them (`_fill`)."""
        loop = asyncio.get_running_loop()
        claimed = {}
        for key in keys:
            if key not in self._frames:
                claimed[key] = self._frames[key] = loop.create_future()
        return claimed

    async def _fill(
        self,
        requests: list[FrameRequest],
        claimed: dict[str, asyncio.Future],
        *,
        strips: Sequence[FrameRequest],
    ) -> None:
        """Answer the claimed futures (frames of `requests`) from the store or decode jobs; the
        jobs also make the strips of the requests of `strips` they decode whole. Whatever
        goes wrong, every claimed future is answered (a sample never waits for frames forever)."""
        try:
            await self._answer(requests, claimed, strips=strips)
        except Exception as error:
            for future in claimed.values():
                if not future.done():
                    future.set_exception(error)
                    future.exception()  # retrieved: the samples on these frames report it
            raise

    async def _answer(
        self,
        requests: list[FrameRequest],
        claimed: dict[str, asyncio.Future],
        *,
        strips: Sequence[FrameRequest],
    ) -> None:
        held: dict[str, tuple[bytes, int, int]] = {}
        if self.store is not None and requests[0].encoding is not None:
            held = await asyncio.to_thread(self.store.get_many, claimed)
        if held:
            from vqakit.models import EncodedImage

            for key, (data, width, height) in held.items():
                claimed[key].set_result(EncodedImage(data, width, height))
            self.stats.from_store += len(held)
        # per group (video, resize, encoding): frame key -> (frame number, what is drawn on it),
        # decoded from the first path the group's video was asked under
        to_decode: dict[tuple, dict[str, tuple[int, Drawing | None]]] = {}
        strip_sets: dict[tuple, dict[str, FrameRequest]] = {}
        paths: dict[tuple, str] = {}
        for request in requests:
            paths.setdefault(request.group, request.path)
            for number, key in zip(request.numbers, request.frame_keys, strict=True):
                if key in claimed and key not in held:
                    to_decode.setdefault(request.group, {})[key] = (number, request.drawing(number))
        for request in strips:
            if request.strip_key not in self._strips:
                strip_sets.setdefault(request.group, {}).setdefault(request.strip_key, request)
        loop = asyncio.get_running_loop()
        jobs = []
        for group, wanted in to_decode.items():
            numbers = sorted({number for number, _ in wanted.values()})
            for chunk in job_chunks(paths[group], numbers):
                whole = set(chunk)
                frames = {
                    key: (number, drawing, claimed[key])
                    for key, (number, drawing) in wanted.items()
                    if number in whole
                }
                strip_futures = {}
                for key, request in list(strip_sets.get(group, {}).items()):
                    if set(request.frame_keys) <= frames.keys() and key not in self._strips:
                        strip_futures[key] = (request, loop.create_future())
                        self._strips[key] = strip_futures[key][1]
                        del strip_sets[group][key]
                made = list(strip_futures.values())
                jobs.append(self._run(paths[group], group, sorted(whole), frames, made))
        await asyncio.gather(*jobs)

    async def _run(
        self,
        path: str,
        group: tuple,
        numbers: list[int],
        frames: dict[str, tuple[int, Drawing | None, asyncio.Future]],
        strips: list[tuple[FrameRequest, asyncio.Future]],
    ) -> None:
        resize, encoding = group[1], json.loads(group[2])
        executor = None
        self._decoding += len(numbers)
        wanted = isinstance(self.executor, Executor) or self._decoding > PROCESS_FRAMES
        if self.executor is not None and encoding is not None and wanted:
            try:
                executor = self.executor if isinstance(self.executor, Executor) else self.executor()
            except Exception as error:  # processes cannot be started here: threads will do
                log.warning("no decode worker processes (%s); decoding in threads", error)
                self.executor = None
        # in a pool each process decodes on one thread: the processes use the cores
        threads = None if executor is None else False
        outputs = tuple((key, number, drawing) for key, (number, drawing, _) in frames.items())
        job = DecodeJob(
            path, tuple(numbers), resize, encoding, outputs, tuple(r.frame_keys for r, _ in strips), threads
        )
        try:
            result: JobResult | None = None
            if executor is not None:
                try:
                    result = await asyncio.get_running_loop().run_in_executor(executor, run_job, job)
                except BrokenExecutor as error:
                    # e.g. a script that starts a run without `if __name__ == "__main__":`, whose
                    # worker processes cannot start: decode in threads for the rest of the run
                    log.warning("decode worker processes failed (%s); decoding in threads instead", error)
                    self.executor = None
            if result is None:
                result = await asyncio.to_thread(run_job, replace(job, frame_threads=None))
        except Exception as error:
            for *_, future in frames.values():
                future.set_exception(error)
                future.exception()  # kept for the run: each sample on these frames reports it
            for request, future in strips:
                if self._strips.get(request.strip_key) is future:
                    del self._strips[request.strip_key]
                future.cancel()
            return
        self.stats.jobs += 1
        self.stats.decoded += result.frames_decoded
        if self.store is not None and encoding is not None:
            # kept before they are handed out: a run that ends as its last frames are sent has
            # stored them all (writes left pending would be cancelled with its event loop)
            rows = [
                (key, result.frames[key].data, result.frames[key].width, result.frames[key].height)
                for key in frames
            ]
            rows += [(r.strip_key, data, 0, 0) for (r, _), data in zip(strips, result.strips, strict=True)]
            await asyncio.to_thread(self.store.put_many, rows)
        for key, (*_, future) in frames.items():
            future.set_result(result.frames[key])
        for (_, future), data in zip(strips, result.strips, strict=True):
            future.set_result(data)

    # --- planning ahead ---------------------------------------------------------------------

    def plan(self, requests: Iterable[FrameRequest]) -> None:
        """Count the uses of these frames by samples about to run (released by `release`)."""
        for request in requests:
            self._wanted.update(request.frame_keys)

    async def prefetch(
        self,
        requests: list[FrameRequest],
        *,
        ahead: Collection[str] = (),
        strips: Sequence[FrameRequest] | None = None,
    ) -> None:
        """Start decoding what these (planned) requests need and neither this run nor the store
        has, in as few jobs as their videos allow; waits while too many frames are held (so the
        caller must let the samples holding them run meanwhile: `runner` hands over the samples
        of each prefetched part before prefetching the next). `ahead`: keys decoded now for
        samples handed over in a later part (an ordered pass, `runner._pass`), which the caller
        bounds: they do not count against `max_frames_in_flight`. `strips`: the requests whose
        strips the jobs make where one job decodes all their frames (default: all of them; not
        parts of requests, whose strip nobody wants)."""
        keys = {key for request in requests for key in request.frame_keys if key not in self._frames}
        if self.store is not None and keys:
            keys &= await asyncio.to_thread(self.store.missing, keys)
        if not keys:
            return  # held, or in the store: nothing is decoded (nor read until asked)
        await self._wait_for_room(len(keys - set(ahead)))
        claimed = self._claim(keys)  # less what others asked for meanwhile
        if not claimed:
            return
        self._counted.update(key for key in claimed if self._wanted.get(key, 0) > 0 and key not in ahead)
        requests = [r for r in requests if not claimed.keys().isdisjoint(r.frame_keys)]
        strips = requests if strips is None else strips
        task = asyncio.ensure_future(self._fill(requests, claimed, strips=strips))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _wait_for_room(self, frames: int) -> None:
        if self._room is None:
            self._room = asyncio.Condition()
        async with self._room:
            await self._room.wait_for(
                lambda: (
                    not frames
                    or not self._counted
                    or len(self._counted) + frames <= self.max_frames_in_flight
                )
            )

    def release(self, requests: Iterable[FrameRequest]) -> None:
        """These planned requests are done with: their frames may go."""
        freed = False
        for request in requests:
            for key in request.frame_keys:
                self._wanted[key] -= 1
                if self._wanted[key] > 0:
                    continue
                del self._wanted[key]
                freed |= key in self._counted
                self._counted.discard(key)
                self._keep_recent(key)
        if freed and self._room is not None:
            task = asyncio.ensure_future(self._notify())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _notify(self) -> None:
        assert self._room is not None
        async with self._room:
            self._room.notify_all()

    def _keep_recent(self, key: str) -> None:
        future = self._frames.get(key)
        if future is None or not future.done():
            return
        size = _size(future.result()) if future.exception() is None else 0
        self._recent_bytes -= self._recent.pop(key, 0)
        self._recent[key] = size
        self._recent.move_to_end(key)
        self._recent_bytes += size
        while self._recent_bytes > RECENT_BYTES and self._recent:
            old, old_size = self._recent.popitem(last=False)
            self._recent_bytes -= old_size
            if self._wanted.get(old, 0) <= 0:
                self._frames.pop(old, None)

    @property
    def held(self) -> int:
        """Frames held for planned samples not yet done."""
        return len(self._counted)
