"""Driving the real Potato 2.12.1 server, shared by every ``*_projects.py`` builder.

Each builder writes a config and items into a temporary folder, runs ``potato start
config.yaml -p PORT`` there on 127.0.0.1, logs its annotators in with Potato's own
simulator client (:class:`potato.simulator.SimulatedUser`), posts their answers through
``/updateinstance``, asks ``/admin/iaa`` for Potato's report, stops the server and copies
what Potato wrote into ``tests/data/potato_server/``. That start / wait / log in / post /
stop / copy sequence lived in seven copies; it lives here so the builders differ only in
what they post (and so a fix to, say, the shutdown reaches all of them).

Potato is GPL-3.0: this module only runs its CLI and calls its simulator client.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "potato_server"
POTATO = Path(sys.executable).with_name("potato")
HOST = "127.0.0.1"
ADMIN_KEY = "accord-fixture-admin-key"
START_TIMEOUT = 90.0
STOP_TIMEOUT = 15.0

Payload = dict[str, str]
# answer(sim, url, user, instance_id) -> the form to submit, or None to submit nothing
# (the builder may post other things itself through ``sim.session`` first).
Answer = Callable[[Any, str, str, str], Payload | None]


def prepare(prefix: str, script: str, seed: int, config: dict[str, Any],
            items: Iterable[dict[str, Any]]) -> Path:
    """A fresh work folder with ``config.yaml`` (headed by its writer) and ``data/items.jsonl``."""
    work = Path(tempfile.mkdtemp(prefix=f"accord-potato-{prefix}-"))
    (work / "data").mkdir()
    (work / "config.yaml").write_text(
        f"# Written by tests/potato_real/{script} for the real Potato 2.12.1 "
        f"server (seed {seed}).\n" + yaml.safe_dump(config, sort_keys=False))
    (work / "data" / "items.jsonl").write_text(
        "".join(json.dumps(item) + "\n" for item in items))
    return work


def wait_up(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Return once the server answers; fail with its log's tail if it died first."""
    import requests
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"potato exited ({proc.returncode}); see {log}:\n"
                               + log.read_text()[-3000:])
        try:
            requests.get(url + "/", timeout=2)
            return
        except requests.RequestException:
            time.sleep(0.5)
    raise RuntimeError(f"potato did not answer on {url} within {START_TIMEOUT}s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server's whole process group (it was started in its own session)."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(STOP_TIMEOUT)


def _next_instance(sim: Any) -> str | None:
    instance = sim.get_current_instance()
    if not instance or not instance.get("instance_id"):
        return None
    return str(instance["instance_id"])


def serve(work: Path, port: int, users: Sequence[str], n_items: int | None,
          answer: Answer, *, iaa_timeout: float = 120) -> Any:
    """Run the server in ``work``, let every user answer, return ``/admin/iaa``'s JSON.

    Each user answers ``n_items`` instances in the order Potato hands them out; with
    ``n_items=None`` a user goes on until Potato hands out no instance or one already
    seen (the end of a queue whose length the builder does not fix).
    """
    import requests
    from potato.simulator import SimulatedUser, UserConfig

    url = f"http://{HOST}:{port}"
    log = work / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(POTATO), "start", "config.yaml", "-p", str(port)],
                                cwd=work, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        wait_up(url, proc, log)
        for user in users:
            sim = SimulatedUser(UserConfig(user_id=user), url)
            if not sim.login():
                raise RuntimeError(f"{user} could not log in: {sim.result.errors}")
            seen: set[str] = set()
            done = 0
            while n_items is None or done < n_items:
                iid = _next_instance(sim)
                if n_items is None and ((iid is None and seen) or iid in seen):
                    break  # past the last item: the user is done
                if iid is None:
                    raise RuntimeError(f"{user}: no instance ({sim.result.errors})")
                seen.add(iid)
                done += 1
                payload = answer(sim, url, user, iid)
                if payload is not None and not sim.submit_annotation(iid, payload, 1.0):
                    raise RuntimeError(f"{user} {iid}: {sim.result.errors}")
                sim.navigate_next()
        response = requests.get(url + "/admin/iaa", headers={"X-API-Key": ADMIN_KEY},
                                timeout=iaa_timeout)
        response.raise_for_status()
        return response.json()
    finally:
        stop(proc)


def save(work: Path, target: Path, users: Sequence[str], report: Any,
         folders: Sequence[str] = ()) -> Path:
    """Replace ``target`` with the config, data, ``folders``, each user's
    ``user_state.json`` and ``expected/iaa.json``; then remove ``work``."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy2(work / "config.yaml", target / "config.yaml")
    shutil.copytree(work / "data", target / "data")
    for folder in folders:
        if (work / folder).exists():
            shutil.copytree(work / folder, target / folder)
    for user in users:
        (target / "annotation_output" / user).mkdir(parents=True)
        shutil.copy2(work / "annotation_output" / user / "user_state.json",
                     target / "annotation_output" / user / "user_state.json")
    (target / "expected").mkdir()
    (target / "expected" / "iaa.json").write_text(
        json.dumps(report, indent=1, sort_keys=True) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return target


def split_out(argv: list[str], default: Path) -> tuple[Path, list[str]]:
    """``--out DIR`` (the folder the projects go into, default ``default``) and the rest."""
    if "--out" not in argv:
        return default, argv
    at = argv.index("--out")
    return Path(argv[at + 1]), argv[:at] + argv[at + 2:]


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it (the usual fixture case)."""
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
