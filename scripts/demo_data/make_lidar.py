"""Generate Accord's lidar demo study: a Potato 2.x project of 3D boxes on point clouds.

Run ``python scripts/demo_data/make_lidar.py`` to (re)write ``resources/demo/lidar_sweeps/``.
The folder is committed; ``tests/core/test_demo_structured.py`` regenerates it into a
temporary folder and compares every byte, so the script and the folder cannot drift.

Why generated: agreement on 3D boxes (``spatial_annotation``, kind ``cuboids``) is only
checkable against a *known truth* and annotators with *known* habits. Each sweep has a
truth list of oriented boxes (cars, pedestrians, cyclists; yaw plus, on some, a little
pitch and roll, so the quaternion matters); the point cloud is drawn from that truth
(ground rings, two building walls, poles and bushes as clutter, points on the surfaces
of every truth box), and three annotators box it with different noise models:

- ``kofi``, careful: small centre/size/yaw noise, keeps pitch and roll;
- ``lena``, sloppy: larger noise, upright yaw-only boxes, sometimes calls a car a cyclist
  or the reverse;
- ``mateo``, misses objects (about 30%, mostly far or small ones) and now and then
  boxes a pole or a bush.

One sweep (``EMPTY_SWEEP``) has no road users: ``kofi`` and ``mateo`` answer ``[]``
(two empty answers agree) and ``lena`` boxes a pole.

Determinism: :class:`_potato_writer.Dice` (``Random.random()`` only), coordinates
rounded to the centimetre before ``float32``, JSON numbers rounded, fixed timestamps.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

# scripts/demo_data/ is not a package: load the shared writer from this folder (whatever
# the working directory), and leave no __pycache__ beside the scripts.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _potato_writer as pw  # noqa: E402

SEED = 20261201
FOLDER_NAME = "lidar_sweeps"
DEMO_DIR = Path(__file__).resolve().parents[2] / "resources" / "demo"
"""Where the app's bundled demos live: the default output, ``<repo>/resources/demo``."""
TASK_NAME = "Lidar sweeps: 3D boxes (Accord demo)"
SCHEME = "objects"
N_SWEEPS = 20
ANNOTATORS = ("kofi", "lena", "mateo")
LABELS = ("car", "pedestrian", "cyclist")
COLORS = {"car": "#FF6B6B", "pedestrian": "#4ECDC4", "cyclist": "#FFEAA7"}
EMPTY_SWEEP = "sweep_013"
"""The sweep with no road users: two annotators answer ``[]``, the third boxes a pole."""

GROUND_Z = -1.73
"""The road surface in the sensor frame (the sensor is 1.73 m above it; x forward,
y left, z up, metres)."""
SIZES = {"car": (4.5, 1.9, 1.6), "pedestrian": (0.6, 0.6, 1.8), "cyclist": (1.8, 0.6, 1.7)}
"""Mean (length, width, height) per class, in metres."""
SIZE_SPREAD = {"car": (0.3, 0.08, 0.08), "pedestrian": (0.06, 0.06, 0.09),
               "cyclist": (0.1, 0.05, 0.07)}
FAR = 30.0
"""Range (m) beyond which ``mateo`` misses objects more often."""
GROUND_RINGS = (4.0, 5.0, 6.2, 7.6, 9.3, 11.4, 14.0, 17.2, 21.0, 25.8, 31.6, 38.8, 47.5)
POINTS_PER_RING = 100
REVIEW_START = datetime(2025, 11, 17, 9, 0, tzinfo=UTC).timestamp()
"""When the first annotator opens the first sweep (a fixed instant, not the clock)."""


# --------------------------------------------------------------------------- geometry


@dataclass(frozen=True)
class Box:
    """An oriented box in the sensor frame; angles in radians (yaw about z, then pitch
    about y, then roll about x: ``R = Rz(yaw) Ry(pitch) Rx(roll)``)."""

    label: str
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    yaw: float
    pitch: float = 0.0
    roll: float = 0.0

    @property
    def range(self) -> float:
        return math.hypot(self.center[0], self.center[1])

    def quaternion(self) -> tuple[float, float, float, float]:
        """``(qx, qy, qz, qw)`` of ``Rz(yaw) Ry(pitch) Rx(roll)``; yaw alone gives
        ``(0, 0, sin θ/2, cos θ/2)`` as ``formats.md`` says."""
        cy, sy = math.cos(self.yaw / 2), math.sin(self.yaw / 2)
        cp, sp = math.cos(self.pitch / 2), math.sin(self.pitch / 2)
        cr, sr = math.cos(self.roll / 2), math.sin(self.roll / 2)
        return (sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
                cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy)

    def matrix(self) -> tuple[tuple[float, float, float], ...]:
        """Rows of the rotation matrix (columns are the box axes in the sensor frame)."""
        x, y, z, w = self.quaternion()
        return ((1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
                (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
                (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)))

    def to_world(self, local: tuple[float, float, float]) -> tuple[float, float, float]:
        m = self.matrix()
        return (self.center[0] + sum(m[0][k] * local[k] for k in range(3)),
                self.center[1] + sum(m[1][k] * local[k] for k in range(3)),
                self.center[2] + sum(m[2][k] * local[k] for k in range(3)))

    def footprint_radius(self) -> float:
        return 0.5 * math.hypot(self.size[0], self.size[1])

    def contains_xy(self, x: float, y: float) -> bool:
        """Whether a ground point lies under the box (yaw only: pitch/roll are small)."""
        dx, dy = x - self.center[0], y - self.center[1]
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        u, v = c * dx + s * dy, -s * dx + c * dy
        return abs(u) <= self.size[0] / 2 + 0.1 and abs(v) <= self.size[1] / 2 + 0.1


@dataclass(frozen=True)
class Clutter:
    """Something that is not a road user but looks a little like one in the points."""

    kind: str  # "pole" or "bush"
    x: float
    y: float


@dataclass(frozen=True)
class Sweep:
    id: str
    index: int
    truth: tuple[Box, ...]
    clutter: tuple[Clutter, ...]


def _place(dice: Any, label: str) -> tuple[float, float, float, float, float]:
    """Centre x, y and yaw, pitch, roll for a road user of this class on a straight road
    along x (lanes at y = ±1.8, ±5.3; parking at ±8.2; sidewalks beyond ±9)."""
    pitch = roll = 0.0
    if label == "car":
        lane = dice.pick((-5.3, -1.8, 1.8, 5.3, -8.2, 8.2))
        y = lane + dice.gauss(0, 0.25)
        heading = 0.0 if lane < 0 else math.pi
        yaw = heading + dice.gauss(0, 0.04)
        if dice.chance(0.2):  # turning or parked at an angle
            yaw = dice.uniform(-math.pi, math.pi)
        if dice.chance(0.25):  # on the ramp of a driveway or a speed bump
            pitch = dice.gauss(0, 0.06)
            roll = dice.gauss(0, 0.03)
        x = dice.uniform(-35, 45)
    elif label == "pedestrian":
        if dice.chance(0.3):  # on a crossing
            y = dice.uniform(-7, 7)
            yaw = dice.pick((math.pi / 2, -math.pi / 2)) + dice.gauss(0, 0.2)
        else:
            y = dice.pick((-1, 1)) * dice.uniform(9.2, 11.5)
            yaw = dice.uniform(-math.pi, math.pi)
        x = dice.uniform(-25, 40)
    else:
        side = dice.pick((-1, 1))
        y = side * dice.uniform(3.2, 3.8)
        yaw = (0.0 if side < 0 else math.pi) + dice.gauss(0, 0.06)
        roll = dice.gauss(0, 0.07)  # a cyclist leans
        x = dice.uniform(-30, 45)
    return x, y, yaw, pitch, roll


def _truth_box(dice: Any, existing: list[Box]) -> Box:
    """One truth object that does not overlap the others and is not on the sensor."""
    while True:
        u = dice.unit()
        label = "car" if u < 0.55 else "pedestrian" if u < 0.8 else "cyclist"
        mean, spread = SIZES[label], SIZE_SPREAD[label]
        size = tuple(round(m + dice.gauss(0, s), 2) for m, s in zip(mean, spread, strict=True))
        x, y, yaw, pitch, roll = _place(dice, label)
        box = Box(label, (round(x, 2), round(y, 2), round(GROUND_Z + size[2] / 2, 2)),
                  (size[0], size[1], size[2]), yaw, pitch, roll)
        if box.range < 4.5:
            continue
        if all(math.hypot(box.center[0] - b.center[0], box.center[1] - b.center[1])
               > box.footprint_radius() + b.footprint_radius() + 0.4 for b in existing):
            return box


def make_sweeps(dice: Any) -> tuple[Sweep, ...]:
    """Every sweep's truth and clutter (drawn before any point, so the clouds can change
    without moving a single truth box)."""
    sweeps = []
    for i in range(1, N_SWEEPS + 1):
        sweep_id = f"sweep_{i:03d}"
        truth: list[Box] = []
        if sweep_id != EMPTY_SWEEP:
            for _ in range(dice.between(4, 10)):
                truth.append(_truth_box(dice, truth))
        clutter = []
        for _ in range(dice.between(2, 4)):
            kind = dice.pick(("pole", "pole", "bush"))
            side = dice.pick((-1, 1))
            clutter.append(Clutter(kind, round(dice.uniform(-30, 40), 2),
                                   round(side * dice.uniform(8.8, 12.5), 2)))
        sweeps.append(Sweep(sweep_id, i, tuple(truth), tuple(clutter)))
    return tuple(sweeps)


# ------------------------------------------------------------------------ point cloud


def _surface_points(dice: Any, box: Box) -> list[tuple[float, float, float]]:
    """Points on the four sides and the top of a box, fewer the farther it is."""
    l, w, h = box.size  # noqa: E741
    faces = (  # (area, axis held fixed, its sign)
        (w * h, 0, 1), (w * h, 0, -1), (l * h, 1, 1), (l * h, 1, -1), (l * w, 2, 1))
    area = sum(f[0] for f in faces)
    density = 45.0 * (10.0 / max(box.range, 6.0)) ** 2
    n = max(14, min(180, int(area * density)))
    half = (l / 2, w / 2, h / 2)
    out = []
    for _ in range(n):
        r = dice.unit() * area
        face = 0
        while face < len(faces) - 1 and r >= faces[face][0]:
            r -= faces[face][0]
            face += 1
        _, axis, sign = faces[face]
        local = [dice.uniform(-half[k], half[k]) for k in range(3)]
        local[axis] = sign * half[axis] + dice.gauss(0, 0.015)
        out.append(box.to_world((local[0], local[1], local[2])))
    return out


def _clutter_points(dice: Any, c: Clutter) -> list[tuple[float, float, float]]:
    """A pole (thin, tall cylinder) or a bush (low dome): point clusters that are not road
    users, so that a false box has something to sit on."""
    out = []
    if c.kind == "pole":
        for _ in range(dice.between(25, 45)):
            a = dice.uniform(0, 2 * math.pi)
            out.append((c.x + 0.12 * math.cos(a), c.y + 0.12 * math.sin(a),
                        GROUND_Z + dice.uniform(0, 3.6)))
    else:
        for _ in range(dice.between(40, 70)):
            a, b = dice.uniform(0, 2 * math.pi), dice.uniform(0, math.pi / 2)
            out.append((c.x + 0.9 * math.cos(a) * math.cos(b),
                        c.y + 0.7 * math.sin(a) * math.cos(b),
                        GROUND_Z + 0.9 * math.sin(b)))
    return out


def point_cloud(sweep: Sweep, dice: Any) -> np.ndarray:
    """The sweep's cloud: float32, N×3, metres, rounded to the centimetre."""
    points: list[tuple[float, float, float]] = []
    for r in GROUND_RINGS:  # ground returns, one ring per laser that hits the road
        step = 2 * math.pi / POINTS_PER_RING
        for k in range(POINTS_PER_RING):
            a = (k + dice.uniform(-0.3, 0.3)) * step
            x, y = r * math.cos(a), r * math.sin(a)
            if abs(y) > 13.8 or any(b.contains_xy(x, y) for b in sweep.truth):
                continue  # behind a wall, or under a box
            points.append((x, y, GROUND_Z + dice.gauss(0, 0.02)))
    for side in (-1, 1):  # building fronts
        for _ in range(160):
            points.append((dice.uniform(-40, 50), side * (14.0 + dice.gauss(0, 0.03)),
                           GROUND_Z + dice.uniform(0, 7)))
    for c in sweep.clutter:
        points.extend(_clutter_points(dice, c))
    for box in sweep.truth:
        points.extend(_surface_points(dice, box))
    return np.round(np.array(points, dtype=np.float64), 2).astype(np.float32)


# ------------------------------------------------------------------------ annotators


@dataclass(frozen=True)
class Profile:
    """How one annotator boxes objects (standard deviations; probabilities)."""

    centre: tuple[float, float]
    """Horizontal centre noise σ = a + b·length (metres)."""
    z: float
    size: float
    """Relative σ of each side."""
    yaw_deg: float
    keeps_tilt: bool
    """False: the annotator draws upright boxes (yaw only) whatever the points show."""
    swap: float
    """Chance of calling a car a cyclist or a cyclist a car."""
    miss: float
    miss_far: float
    """Extra chance to miss an object beyond ``FAR`` metres."""
    miss_small: float
    """Extra chance to miss a pedestrian or cyclist."""
    false_box: float
    """Chance per sweep of boxing a pole or bush."""
    seconds: tuple[float, float]


PROFILES = {
    "kofi": Profile(centre=(0.05, 0.01), z=0.03, size=0.03, yaw_deg=1.5, keeps_tilt=True,
                    swap=0.0, miss=0.0, miss_far=0.03, miss_small=0.0, false_box=0.0,
                    seconds=(150, 320)),
    "lena": Profile(centre=(0.12, 0.06), z=0.12, size=0.12, yaw_deg=7.0, keeps_tilt=False,
                    swap=0.15, miss=0.03, miss_far=0.05, miss_small=0.0, false_box=0.05,
                    seconds=(60, 140)),
    "mateo": Profile(centre=(0.08, 0.02), z=0.05, size=0.05, yaw_deg=3.0, keeps_tilt=True,
                     swap=0.0, miss=0.12, miss_far=0.4, miss_small=0.25, false_box=0.3,
                     seconds=(70, 180)),
}


@dataclass(frozen=True)
class Drawn:
    """One box an annotator drew, and what it was meant to be (for the README/tests)."""

    box: Box
    truth_index: int | None
    """Index into the sweep's truth; ``None`` for a false box."""


def _noisy(dice: Any, p: Profile, t: Box) -> Box:
    """The truth box as annotator profile ``p`` draws it (noise, maybe the wrong label)."""
    sigma = p.centre[0] + p.centre[1] * t.size[0]
    size = tuple(round(max(0.2, s * (1 + dice.gauss(0, p.size))), 3) for s in t.size)
    label = t.label
    if label in ("car", "cyclist") and dice.chance(p.swap):
        label = "cyclist" if label == "car" else "car"
    tilt = math.radians(0.5)
    return Box(label,
               (round(t.center[0] + dice.gauss(0, sigma), 3),
                round(t.center[1] + dice.gauss(0, sigma), 3),
                round(t.center[2] + dice.gauss(0, p.z), 3)),
               (size[0], size[1], size[2]),
               t.yaw + math.radians(dice.gauss(0, p.yaw_deg)),
               t.pitch + dice.gauss(0, tilt) if p.keeps_tilt else 0.0,
               t.roll + dice.gauss(0, tilt) if p.keeps_tilt else 0.0)


def _false_box(dice: Any, sweep: Sweep) -> Box:
    """A box on clutter: a pole taken for a pedestrian, a bush for a car."""
    c = dice.pick(sweep.clutter)
    label = "pedestrian" if c.kind == "pole" else "car"
    l, w, h = SIZES[label]  # noqa: E741
    return Box(label, (round(c.x + dice.gauss(0, 0.1), 3), round(c.y + dice.gauss(0, 0.1), 3),
                       round(GROUND_Z + h / 2, 3)), (l, w, h), dice.uniform(-math.pi, math.pi))


def annotate(name: str, sweep: Sweep, dice: Any) -> list[Drawn]:
    """What ``name`` drew on ``sweep``, in drawing order."""
    p = PROFILES[name]
    drawn = []
    for i, t in enumerate(sweep.truth):
        miss = p.miss + (p.miss_far if t.range > FAR else 0.0) \
            + (p.miss_small if t.label != "car" else 0.0)
        if dice.chance(miss):
            continue
        drawn.append(Drawn(_noisy(dice, p, t), i))
    if sweep.id == EMPTY_SWEEP:
        if name == "lena":
            drawn.append(Drawn(_false_box(dice, sweep), None))
    elif dice.chance(p.false_box):
        drawn.append(Drawn(_false_box(dice, sweep), None))
    return dice.shuffled(drawn)


def cuboid_json(box: Box) -> dict[str, Any]:
    """The client shape Potato's point-cloud viewer writes (``spatial_utils.py``)."""
    return {"type": "cuboid_3d", "label": box.label, "color": COLORS[box.label],
            "coordinates": {"center": list(box.center), "size": list(box.size),
                            "rotation": [round(q, 6) for q in box.quaternion()]}}


@dataclass(frozen=True)
class Plan:
    sweeps: tuple[Sweep, ...]
    clouds: dict[str, np.ndarray]
    orderings: dict[str, tuple[str, ...]]
    answers: dict[str, dict[str, list[Drawn]]]
    """``answers[annotator][sweep id]``."""


def make_plan(seed: int = SEED) -> Plan:
    """Truth, media and every answer, from one seed: the files, the README and the tests
    all read this one plan. Each annotator draws from their own dice, so changing one
    noise model leaves the others' answers as they were."""
    dice = pw.Dice(seed)
    sweeps = make_sweeps(dice)
    cloud_dice = pw.Dice(seed + 1)
    clouds = {s.id: point_cloud(s, cloud_dice) for s in sweeps}
    orderings: dict[str, tuple[str, ...]] = {}
    answers: dict[str, dict[str, list[Drawn]]] = {}
    for k, name in enumerate(ANNOTATORS):
        adice = pw.Dice(seed + 10 + k)
        orderings[name] = tuple(adice.shuffled([s.id for s in sweeps]))
        by_id = {s.id: s for s in sweeps}
        answers[name] = {sid: annotate(name, by_id[sid], adice) for sid in orderings[name]}
    return Plan(sweeps, clouds, orderings, answers)


# ------------------------------------------------------------------------------ files


def user_state(name: str, plan: Plan) -> dict[str, Any]:
    """``name``'s ``user_state.json``: one ``_data`` answer per sweep, in their own order."""
    dice = pw.Dice(SEED + 20 + ANNOTATORS.index(name))
    start = REVIEW_START + 2400 * ANNOTATORS.index(name)
    labels: dict[str, list[list[Any]]] = {}
    behaviours: dict[str, dict[str, Any]] = {}
    for item, begin, end in pw.sessions(dice, start, plan.orderings[name],
                                        PROFILES[name].seconds):
        answer = [cuboid_json(d.box) for d in plan.answers[name][item]]
        pair = pw.data_pair(SCHEME, answer)
        labels[item] = [pair]
        behaviours[item] = pw.behaviour(item, begin, end,
                                        [pw.change(end - dice.uniform(2, 6), SCHEME, pair[1])])
    return pw.user_state(name, plan.orderings[name], labels, behaviours)


CONFIG_YAML = f"""\
# Potato 2.x project: 3D boxes on synthetic lidar sweeps, by three annotators.
# Generated by scripts/demo_data/make_lidar.py (seed {SEED}); do not edit by hand.
annotation_task_name: "{TASK_NAME}"
task_dir: .
data_files:
  - data/sweeps.jsonl
item_properties:
  id_key: id
  text_key: text
output_annotation_dir: annotation_output/
num_annotators_per_item: 3
assignment_strategy: fixed_order
max_annotations_per_item: -1

instance_display:
  fields:
    - key: text
      type: text

annotation_schemes:
  - annotation_type: spatial_annotation
    name: {SCHEME}
    description: "Draw a 3D box around every car, pedestrian and cyclist (metres, sensor
      frame: x forward, y left, z up)."
    source_field: point_cloud
    tools: [cuboid_3d]
    labels:
{chr(10).join(f'      - {{name: {n}, color: "{c}"}}' for n, c in COLORS.items())}
    color_mode: height
    default_box_height: 1.7
"""


def readme(plan: Plan) -> str:
    """The folder's README: the truth per sweep and what each annotator did with it."""
    rows = []
    totals = {name: {"drawn": 0, "kept": 0, "false": 0, "swapped": 0} for name in ANNOTATORS}
    n_truth = 0
    for s in plan.sweeps:
        counts = {label: sum(b.label == label for b in s.truth) for label in LABELS}
        tilted = sum(abs(b.pitch) > 0.02 or abs(b.roll) > 0.02 for b in s.truth)
        far = sum(b.range > FAR for b in s.truth)
        cells = []
        for name in ANNOTATORS:
            drawn = plan.answers[name][s.id]
            kept = sum(d.truth_index is not None for d in drawn)
            false = len(drawn) - kept
            swapped = sum(d.truth_index is not None and d.box.label
                          != s.truth[d.truth_index].label for d in drawn)
            t = totals[name]
            t["drawn"] += len(drawn)
            t["kept"] += kept
            t["false"] += false
            t["swapped"] += swapped
            cells.append(f"{len(drawn)}" + (f" ({false} false)" if false else ""))
        n_truth += len(s.truth)
        rows.append(f"| {s.id} | {len(s.truth)} | {counts['car']} / {counts['pedestrian']} / "
                    f"{counts['cyclist']} | {tilted} | {far} | {' | '.join(cells)} |")
    summary = [f"- **{name}**: drew {t['drawn']} boxes for {n_truth} truth objects: "
               f"{t['kept']} found ({100 * t['kept'] / n_truth:.0f}%), {t['false']} false, "
               f"{t['swapped']} with the wrong label."
               for name, t in totals.items()]
    lines = [
        "# Lidar sweeps: Accord's 3D-box demo study",
        "",
        f"A Potato 2.x project folder: {len(plan.sweeps)} synthetic lidar sweeps "
        "(`clouds/*.npy`, float32 N×3, metres in the sensor frame: x forward, y left, z up; "
        f"the road is at z = {GROUND_Z}), each boxed by three annotators with the "
        f"`spatial_annotation` scheme `{SCHEME}` (labels car, pedestrian, cyclist; "
        "`cuboid_3d` with `rotation: [qx, qy, qz, qw]`).",
        "",
        "Everything here is synthetic and generated by a seeded script:",
        "",
        "    python scripts/demo_data/make_lidar.py",
        "",
        "which rewrites this folder byte for byte (a test checks that it matches).",
        "",
        "## Known truth",
        "",
        "A straight road along x: lanes at y = ±1.8 and ±5.3 m, parking at ±8.2, "
        "sidewalks beyond ±9, building fronts at ±14. Each sweep has 4-10 road users "
        f"(none on {EMPTY_SWEEP}): cars about 4.5×1.9×1.6 m, pedestrians 0.6×0.6×1.8, "
        "cyclists 1.8×0.6×1.7, with a yaw; a quarter of the cars carry some pitch and "
        "roll (ramps, bumps) and cyclists lean (roll). The cloud has points on the ground, "
        "the walls, 2-4 poles or bushes (not road users) and the sides and top of every "
        "truth box, fewer the farther the box is.",
        "",
        "| sweep | objects | car / ped / cyclist | tilted | beyond 30 m | "
        + " | ".join(f"{n} boxes" for n in ANNOTATORS) + " |",
        "|---|---|---|---|---|" + "---|" * len(ANNOTATORS),
        *rows,
        "",
        "## Annotators (noise models against that truth)",
        "",
        "- **kofi**: careful. Centre σ ≈ 5 cm + 1% of the length, size σ 3%, yaw σ 1.5°, "
        "keeps pitch and roll; misses only the odd far object.",
        "- **lena**: sloppy. Centre σ ≈ 12 cm + 6% of the length, size σ 12%, yaw σ 7°, "
        "draws every box upright (yaw only), calls a car a cyclist or a cyclist a car 15% "
        f"of the time. On {EMPTY_SWEEP} she boxes a pole as a pedestrian.",
        "- **mateo**: misses objects: 12% of everything, plus 40% of those beyond 30 m and "
        "25% of pedestrians and cyclists (about 30% overall), and in about one sweep in "
        "three boxes a pole (as a pedestrian) or a bush (as a car). Moderate noise "
        "otherwise.",
        "",
        *summary,
        "",
        f"On {EMPTY_SWEEP} kofi and mateo answer `[]`: two empty answers agree (score 1, "
        "counted in `n_empty_pairs`); each of them against lena's single box scores 0.",
        "",
        "What Accord should show: kofi-mateo agree on what they both boxed (high matched "
        "IoU) but differ in counts (large `mean_object_count_diff`); lena's pairs have "
        "lower matched IoU and some label disagreements.",
        "",
    ]
    return "\n".join(lines)


def generate(out_dir: Path) -> None:
    """Write the study into ``out_dir``, replacing that folder (and nothing else)."""
    pw.replace_folder(out_dir)
    plan = make_plan()
    pw.write_text(out_dir / "config.yaml", CONFIG_YAML)
    pw.write_text(out_dir / "README.md", readme(plan))
    records = []
    for s in plan.sweeps:
        cloud_path = f"clouds/{s.id}.npy"
        records.append({"id": s.id,
                        "text": f"Sweep {s.index} of a synthetic street drive "
                                f"({len(plan.clouds[s.id])} points).",
                        "point_cloud": cloud_path})
        (out_dir / "clouds").mkdir(exist_ok=True)
        np.save(out_dir / cloud_path, plan.clouds[s.id], allow_pickle=False)
    pw.write_jsonl(out_dir / "data" / "sweeps.jsonl", records)
    for name in ANNOTATORS:
        pw.write_user_state(out_dir, name, user_state(name, plan))


if __name__ == "__main__":
    generate(DEMO_DIR / FOLDER_NAME)
