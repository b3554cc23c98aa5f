"""Judges and their cache, built in one place for every run that judges.

``benchcheck judge``, ``benchcheck diagnose --judge`` and the audit's label-error section
all describe their judges with a :class:`JudgeSetup` and open them with
:meth:`JudgeSetup.open`, which builds each judge, opens the persistent cache and closes
both afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchcheck._progress import Progress

if TYPE_CHECKING:
    from benchcheck.judges.base import Judge
    from benchcheck.judges.cache import JudgeCache

__all__ = ["JudgeSetup", "Progress"]


@dataclass(frozen=True)
class JudgeSetup:
    """Which judges to build and how.

    Attributes
    ----------
    specs
        ``backend[:model]`` per judge (``llama-cpp`` alone: the embedded default).
    base_url, concurrency, api_key_env, timeout
        OpenAI-compatible servers: address, requests in flight, the variable holding the key,
        seconds per request (connect, reads and the whole answer).
    cache
        The SQLite cache file (``None``: under the user cache folder).
    use_cache
        Read and write the cache.
    engine, address, actors
        ``embedded``, or ``ray`` (judge actors on a Ray cluster at ``address``).

    """

    specs: tuple[str, ...] = ("llama-cpp",)
    base_url: str | None = None
    concurrency: int = 8
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    cache: str | None = None
    use_cache: bool = True
    engine: str = "embedded"
    address: str | None = None
    actors: int = 1

    @classmethod
    def from_options(
        cls, judges: list[str] | None, *, no_cache: bool = False, **settings: Any
    ) -> JudgeSetup:
        """Return the setup a command line gives.

        ``--judge`` repeated (none: the embedded default), ``--no-cache``, and the other
        settings by name.

        >>> JudgeSetup.from_options(None, no_cache=True, timeout=5.0).specs
        ('llama-cpp',)
        """
        specs = tuple(judges) if judges else cls.specs
        return cls(specs, use_cache=not no_cache, **settings)

    def build(self, spec: str) -> Judge:
        """Build one judge of this setup."""
        if self.engine == "ray":  # same cache semantics: RayJudge is a Judge like any other
            from benchcheck.engine.ray_judge import RayJudge

            return RayJudge(spec, actors=self.actors, address=self.address)
        from benchcheck.judges.run import make_judge

        judge = make_judge(
            spec,
            base_url=self.base_url,
            concurrency=self.concurrency,
            api_key_env=self.api_key_env,
        )
        set_timeout = getattr(judge, "set_timeout", None)
        if set_timeout is not None:  # a remote judge: bound each request
            set_timeout(self.timeout)
        return judge

    @contextmanager
    def open(
        self, *, on_build: Callable[[str], None] | None = None
    ) -> Iterator[tuple[list[Judge], JudgeCache | None]]:
        """Build every judge and open the cache; close them all on the way out."""
        from benchcheck.judges.cache import JudgeCache, default_cache_path

        with ExitStack() as stack:
            store = None
            if self.use_cache:
                store = stack.enter_context(JudgeCache(self.cache or default_cache_path()))
            judges = []
            for spec in self.specs:
                if on_build is not None:
                    on_build(spec)
                judges.append(stack.enter_context(self.build(spec)))
            yield judges, store
