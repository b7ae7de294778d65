"""Generate Accord's street-image demo study: a Potato 2.x project of boxes, shapes and masks.

Run ``python scripts/demo_data/make_images.py`` to (re)write
``resources/demo/street_images/``. The folder is committed;
``tests/core/test_demo_structured.py`` regenerates it into a temporary folder and
compares every byte, so the script and the folder cannot drift apart.

Why generated: region agreement (boxes, polygons, ellipses; IoU matching) and mask
agreement (STAPLE's per-annotator sensitivity and specificity) can only be checked
against a *known truth* and annotators with *known* habits. Each picture is drawn from
its truth: a street in perspective (sky, buildings, road with a dashed centre line,
sidewalks) with cars, people and signs. Two schemes:

- ``objects`` (``image_annotation``, tools bbox, polygon, ellipse): cars as boxes, cars
  seen at an angle as polygons, people as boxes, round signs as ellipses, warning
  signs as triangles; coordinates normalized to [0, 1], origin top-left;
- ``segmentation`` (``image_annotation``, brush): a ``road`` and a ``sidewalk`` mask per
  picture, row-major RLE over the full 320×240 pixels.

Annotators: ``ana`` careful (about a pixel off), ``ravi`` sloppy (loose boxes, masks
painted over the edges and over the cars: over-segmenting), ``tomas`` misses objects
(about 30%, mostly small ones) and under-segments. Two pictures have a car cut by the
frame edge, and the boxes drawn on them start slightly outside [0, 1], as Potato allows
when a box is dragged from the canvas margin.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

# scripts/demo_data/ is not a package: load the shared writer from this folder (whatever
# the working directory), and leave no __pycache__ beside the scripts.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _potato_writer as pw  # noqa: E402

SEED = 20261203
FOLDER_NAME = "street_images"
DEMO_DIR = Path(__file__).resolve().parents[2] / "resources" / "demo"
"""Where the app's bundled demos live: the default output, ``<repo>/resources/demo``."""
TASK_NAME = "Street scenes: objects and road masks (Accord demo)"
N_IMAGES = 15
W, H = 320, 240
ANNOTATORS = ("ana", "ravi", "tomas")
OBJECT_LABELS = ("car", "person", "sign")
MASK_LABELS = ("road", "sidewalk")
COLORS = {"car": "#FF6B6B", "person": "#4ECDC4", "sign": "#FFEAA7", "road": "#45B7D1",
          "sidewalk": "#96CEB4"}
EDGE_IMAGES = {"street_04": "left", "street_11": "right"}
"""Pictures with a car cut by the frame edge (boxes on it reach slightly outside [0, 1])."""
SMALL = 30.0
"""Pixels: objects lower than this are the ones ``tomas`` misses most."""
REVIEW_START = datetime(2025, 12, 1, 9, 0, tzinfo=UTC).timestamp()
"""When the first annotator opens the first picture (a fixed instant, not the clock)."""

PALETTE = (
    (110, 160, 220), (160, 195, 235),                   # 0-1 sky
    (150, 120, 100), (120, 125, 135), (180, 165, 140),  # 2-4 buildings
    (95, 90, 85),                                       # 5 building base
    (80, 80, 85), (235, 235, 220), (170, 170, 160),     # 6 road, 7 lane paint, 8 sidewalk
    (60, 70, 90), (25, 25, 25),                         # 9 glass, 10 tyres
    (200, 40, 40), (40, 80, 190), (230, 230, 235), (230, 190, 40), (40, 140, 80),  # 11-15
    (225, 180, 150), (60, 60, 160), (200, 100, 40), (50, 50, 60),  # 16 skin .. 19 trousers
    (210, 30, 30), (245, 245, 245), (245, 200, 0), (110, 110, 115),  # 20-23 sign, pole
)
SKY_TOP, SKY_LOW, BASE, ROAD, PAINT, WALK, GLASS, TYRE = 0, 1, 5, 6, 7, 8, 9, 10
CAR_COLOURS = (11, 12, 13, 14, 15)
SKIN, SHIRTS, TROUSERS = 16, (17, 18), 19
SIGN_RED, SIGN_WHITE, SIGN_YELLOW, POLE = 20, 21, 22, 23
# class map values, for the masks
C_OTHER, C_ROAD, C_WALK, C_THING = 0, 1, 2, 3

_row, _col = np.mgrid[0:H, 0:W].astype(np.float64) + 0.5
"""Pixel centres: a pixel is inside a shape when its centre is."""


# ----------------------------------------------------------------------------- shapes


@dataclass(frozen=True)
class Shape:
    """A truth or annotated shape in **pixels** (converted to [0, 1] when written).

    ``kind`` is Potato's type: ``bbox`` (``params`` x0, y0, x1, y1), ``polygon``
    (``points``) or ``ellipse`` (``params`` cx, cy, rx, ry, angle in degrees).
    """

    kind: str
    label: str
    params: tuple[float, ...] = ()
    points: tuple[tuple[float, float], ...] = ()

    def bounds(self) -> tuple[float, float, float, float]:
        if self.kind == "bbox":
            x0, y0, x1, y1 = self.params
            return (x0, y0, x1, y1)
        if self.kind == "polygon":
            xs, ys = [p[0] for p in self.points], [p[1] for p in self.points]
            return (min(xs), min(ys), max(xs), max(ys))
        cx, cy, rx, ry, _ = self.params
        return (cx - rx, cy - ry, cx + rx, cy + ry)

    @property
    def height(self) -> float:
        b = self.bounds()
        return b[3] - b[1]

    def to_json(self) -> dict[str, Any]:
        """Potato's client shape (``cv_utils.py``), normalized, 4 decimals."""
        head = {"type": self.kind, "label": self.label, "color": COLORS[self.label]}
        if self.kind == "bbox":
            x0, y0, x1, y1 = self.params
            coords: Any = {"x": round(x0 / W, 4), "y": round(y0 / H, 4),
                           "width": round((x1 - x0) / W, 4), "height": round((y1 - y0) / H, 4)}
        elif self.kind == "polygon":
            coords = [{"x": round(x / W, 4), "y": round(y / H, 4)} for x, y in self.points]
        else:
            cx, cy, rx, ry, angle = self.params
            coords = {"cx": round(cx / W, 4), "cy": round(cy / H, 4), "rx": round(rx / W, 4),
                      "ry": round(ry / H, 4), "angle": round(angle, 1)}
        return {**head, "coordinates": coords}


def _rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return (_col >= x0) & (_col < x1) & (_row >= y0) & (_row < y1)


def _ellipse(cx: float, cy: float, rx: float, ry: float) -> np.ndarray:
    return ((_col - cx) / rx) ** 2 + ((_row - cy) / ry) ** 2 <= 1.0


def _polygon(points: tuple[tuple[float, float], ...]) -> np.ndarray:
    """Even-odd rule over pixel centres."""
    inside = np.zeros((H, W), dtype=bool)
    n = len(points)
    for i in range(n):
        (xa, ya), (xb, yb) = points[i], points[(i + 1) % n]
        if ya == yb:
            continue
        crosses = (_row >= min(ya, yb)) & (_row < max(ya, yb))
        x_at = xa + (_row - ya) * (xb - xa) / (yb - ya)
        inside ^= crosses & (_col < x_at)
    return inside


# ------------------------------------------------------------------------------ scene


@dataclass
class Scene:
    """One picture: palette indices, what each pixel is, and the truth shapes."""

    id: str
    horizon: int
    pixels: np.ndarray = field(default_factory=lambda: np.zeros((H, W), dtype=np.uint8))
    classes: np.ndarray = field(default_factory=lambda: np.zeros((H, W), dtype=np.uint8))
    truth: list[Shape] = field(default_factory=list)
    car_pixels: np.ndarray = field(default_factory=lambda: np.zeros((H, W), dtype=bool))
    road_area: np.ndarray = field(default_factory=lambda: np.zeros((H, W), dtype=bool))
    """The road's trapezoid, cars included: what a hasty painter fills."""

    def paint(self, mask: np.ndarray, colour: int, cls: int | None = None) -> None:
        self.pixels[mask] = colour
        if cls is not None:
            self.classes[mask] = cls

    def masks(self) -> dict[str, np.ndarray]:
        return {"road": self.classes == C_ROAD, "sidewalk": self.classes == C_WALK}


@dataclass(frozen=True)
class Street:
    """The perspective of the road: edges meet at the vanishing point on the horizon."""

    horizon: float
    vanish: float
    left: float
    right: float
    """Road edge offsets from the vanishing point at the bottom row (pixels)."""

    def depth(self, y: float) -> float:
        """0 at the horizon, 1 at the bottom row."""
        return max(0.0, (y - self.horizon) / (H - self.horizon))

    def road(self, y: float) -> tuple[float, float]:
        d = self.depth(y)
        return (self.vanish - self.left * d, self.vanish + self.right * d)

    def walks(self, y: float) -> tuple[tuple[float, float], tuple[float, float]]:
        a, b = self.road(y)
        wide = 0.55 * (self.left + self.right) / 2 * self.depth(y)
        return ((a - wide, a), (b, b + wide))


def _background(scene: Scene, st: Street, dice: Any) -> None:
    hz = scene.horizon
    scene.paint(_row < hz * 0.55, SKY_TOP)
    scene.paint((_row >= hz * 0.55) & (_row < hz), SKY_LOW)
    x = 0.0
    while x < W:  # building fronts along the skyline, darker base below the horizon
        width = dice.uniform(35, 80)
        top = dice.uniform(hz * 0.2, hz * 0.8)
        colour = dice.pick((2, 3, 4))
        scene.paint(_rect(x, top, x + width, hz + 1), colour)
        for wy in np.arange(top + 6, hz - 8, 12.0):
            for wx in np.arange(x + 5, x + width - 8, 11.0):
                scene.paint(_rect(wx, wy, wx + 5, wy + 6), GLASS)
        x += width
    scene.paint(_row >= hz, BASE, C_OTHER)
    y = _row
    d = np.maximum(0.0, (y - st.horizon) / (H - st.horizon))
    road_l, road_r = st.vanish - st.left * d, st.vanish + st.right * d
    wide = 0.55 * (st.left + st.right) / 2 * d
    below = y >= hz
    scene.paint(below & (_col >= road_l - wide) & (_col < road_r + wide), WALK, C_WALK)
    scene.road_area = below & (_col >= road_l) & (_col < road_r)
    scene.paint(scene.road_area, ROAD, C_ROAD)
    centre = st.vanish + (st.right - st.left) / 2 * d
    dashes = np.floor(np.sqrt(np.maximum(y - hz, 0.0)) * 1.6) % 2 == 0
    scene.paint(below & dashes & (np.abs(_col - centre) < 0.4 + 2.2 * d), PAINT, C_ROAD)


def _free(box: tuple[float, float, float, float], taken: list[tuple[float, ...]]) -> bool:
    """Whether ``box`` keeps 3 px from every placed object: shapes never overlap, so the
    truth needs no occlusion rules."""
    x0, y0, x1, y1 = box
    return all(x1 + 3 < a or b + 3 < x0 or y1 + 3 < c or e + 3 < y0 for a, c, b, e in taken)


def _car(scene: Scene, st: Street, dice: Any, taken: list[tuple[float, ...]],
         edge: str | None = None) -> None:
    for _ in range(60):
        yb = dice.uniform(st.horizon + 18, H - 3) if edge is None else dice.uniform(H - 40,
                                                                                    H - 10)
        s = st.depth(yb)
        w = 18 + 105 * s
        h = 0.62 * w
        a, b = st.road(yb)
        if edge == "left":
            x0 = -0.35 * w
        elif edge == "right":
            x0 = W - 0.65 * w
        else:
            if b - a < w + 6:
                continue
            x0 = dice.uniform(a + 3, b - 3 - w)
        box = (x0, yb - h, x0 + w, yb)
        if _free(box, taken):
            break
    else:
        return
    taken.append(box)
    colour = dice.pick(CAR_COLOURS)
    angled = edge is None and dice.chance(0.3)
    if angled:  # seen three-quarter on: a trapezoid silhouette, annotated as a polygon
        lean = dice.pick((-1, 1)) * w * dice.uniform(0.1, 0.2)
        pts = ((x0, yb), (x0 + w, yb), (x0 + w - 0.12 * w + lean, yb - h),
               (x0 + 0.22 * w + lean, yb - h))
        pts = tuple((round(px, 2), round(py, 2)) for px, py in pts)
        body = _polygon(pts)
        scene.paint(body, colour, C_THING)
        scene.paint(body & _rect(x0, yb - h * 0.9, x0 + w, yb - h * 0.58), GLASS)
        scene.truth.append(Shape("polygon", "car", points=pts))
    else:
        lower = _rect(x0, yb - 0.58 * h, x0 + w, yb - 0.12 * h)
        cabin = _rect(x0 + 0.16 * w, yb - h, x0 + 0.84 * w, yb - 0.56 * h)
        body = lower | cabin
        scene.paint(body, colour, C_THING)
        scene.paint(_rect(x0 + 0.22 * w, yb - 0.92 * h, x0 + 0.78 * w, yb - 0.62 * h), GLASS)
        for wx in (x0 + 0.2 * w, x0 + 0.8 * w):
            wheel = _ellipse(wx, yb - 0.13 * h, 0.11 * w, 0.13 * h)
            scene.paint(wheel, TYRE, C_THING)
            body |= wheel
        visible = (max(0.0, x0), yb - h, min(float(W), x0 + w), yb)
        scene.truth.append(Shape("bbox", "car", tuple(round(v, 2) for v in visible)))
    scene.car_pixels |= body


def _person(scene: Scene, st: Street, dice: Any, taken: list[tuple[float, ...]]) -> None:
    for _ in range(60):
        yb = dice.uniform(st.horizon + 12, H - 3)
        s = st.depth(yb)
        h = 14 + 62 * s
        w = 0.34 * h
        (la, lb), (ra, rb) = st.walks(yb)
        a, b = (la, lb) if dice.chance(0.5) else (ra, rb)
        a, b = max(a, 2.0), min(b, W - 2.0)
        if b - a < w + 2:
            continue
        x0 = dice.uniform(a + 1, b - 1 - w)
        box = (x0, yb - h, x0 + w, yb)
        if _free(box, taken):
            break
    else:
        return
    taken.append(box)
    r = 0.5 * w * 0.8
    cx = x0 + w / 2
    scene.paint(_ellipse(cx, yb - h + r, r, r), SKIN, C_THING)
    scene.paint(_rect(x0, yb - h + 2 * r, x0 + w, yb - 0.45 * h), dice.pick(SHIRTS), C_THING)
    scene.paint(_rect(x0 + 0.12 * w, yb - 0.45 * h, x0 + 0.88 * w, yb), TROUSERS, C_THING)
    scene.truth.append(Shape("bbox", "person", tuple(round(v, 2) for v in box)))


def _sign(scene: Scene, st: Street, dice: Any, taken: list[tuple[float, ...]]) -> None:
    for _ in range(60):
        yb = dice.uniform(st.horizon + 10, H - 20)
        s = st.depth(yb)
        r = 4 + 13 * s
        (la, lb), (ra, rb) = st.walks(yb)
        base = (lb - 0.3 * (lb - la)) if dice.chance(0.5) else (ra + 0.3 * (rb - ra))
        if not 2 * r < base < W - 2 * r:
            continue
        cy = yb - 2.2 * r - 25 * s - 6
        box = (base - r, cy - r, base + r, yb)
        if cy - r > 1 and _free(box, taken):
            break
    else:
        return
    taken.append(box)
    scene.paint(_rect(base - 0.8 - s, cy, base + 0.8 + s, yb), POLE, C_THING)
    if dice.chance(0.6):  # round: red ring on white, annotated as an ellipse
        scene.paint(_ellipse(base, cy, r, r), SIGN_RED, C_THING)
        scene.paint(_ellipse(base, cy, 0.7 * r, 0.7 * r), SIGN_WHITE)
        scene.truth.append(Shape("ellipse", "sign", (round(base, 2), round(cy, 2),
                                                     round(r, 2), round(r, 2), 0.0)))
    else:  # warning triangle, annotated as a polygon
        pts = ((base, cy - r), (base + 0.87 * r, cy + 0.5 * r), (base - 0.87 * r, cy + 0.5 * r))
        pts = tuple((round(px, 2), round(py, 2)) for px, py in pts)
        scene.paint(_polygon(pts), SIGN_YELLOW, C_THING)
        scene.truth.append(Shape("polygon", "sign", points=pts))


def make_scene(index: int, dice: Any) -> Scene:
    """One picture: the street, then its objects far to near (farther ones are drawn
    first, so nearer ones cover them)."""
    scene_id = f"street_{index:02d}"
    horizon = dice.between(88, 112)
    st = Street(float(horizon), W / 2 + dice.gauss(0, 18), dice.uniform(150, 210),
                dice.uniform(150, 210))
    scene = Scene(scene_id, horizon)
    _background(scene, st, dice)
    taken: list[tuple[float, ...]] = []
    makers: list[tuple[float, Any]] = []
    for _ in range(dice.between(1, 4)):
        makers.append((dice.unit(), _car))
    for _ in range(dice.between(0, 3)):
        makers.append((dice.unit(), _person))
    for _ in range(dice.between(1, 2)):
        makers.append((dice.unit(), _sign))
    if scene_id in EDGE_IMAGES:
        _car(scene, st, dice, taken, edge=EDGE_IMAGES[scene_id])
    for _, make in sorted(makers, key=lambda m: m[0]):
        make(scene, st, dice, taken)
    return scene


# ------------------------------------------------------------------------ annotators


@dataclass(frozen=True)
class Profile:
    """How one annotator draws shapes and paints masks (pixels; probabilities)."""

    jitter: float
    """σ of every coordinate, in pixels."""
    loose: tuple[float, float]
    """Each side pushed outward by this share of the object's size (uniform range)."""
    miss: float
    miss_small: float
    """Extra chance to miss an object lower than ``SMALL`` pixels."""
    grow: tuple[int, ...]
    """Mask edge moved outward (positive) or inward (negative), in pixels: one of these,
    drawn per mask."""
    paints_over_cars: bool
    """Road painted straight across the cars on it (over-segmenting)."""
    skips_far_road: int
    """Rows under the horizon left unpainted (under-segmenting the far road)."""
    skips_sidewalk: float
    """Chance to leave the sidewalk mask out."""
    seconds: tuple[float, float]


PROFILES = {
    "ana": Profile(jitter=0.8, loose=(0.0, 0.0), miss=0.0, miss_small=0.05, grow=(-1, 0, 0, 1),
                   paints_over_cars=False, skips_far_road=0, skips_sidewalk=0.0,
                   seconds=(120, 260)),
    "ravi": Profile(jitter=2.0, loose=(0.04, 0.15), miss=0.03, miss_small=0.0, grow=(4,),
                    paints_over_cars=True, skips_far_road=0, skips_sidewalk=0.0,
                    seconds=(45, 110)),
    "tomas": Profile(jitter=1.2, loose=(0.0, 0.0), miss=0.15, miss_small=0.4, grow=(-3,),
                     paints_over_cars=False, skips_far_road=14, skips_sidewalk=0.35,
                     seconds=(60, 140)),
}


def _redraw(dice: Any, p: Profile, t: Shape, margin: bool) -> Shape:
    """The shape as this annotator draws it. ``margin``: a box dragged from outside the
    canvas, so the edge the object touches lands a little outside the image."""
    j = p.jitter
    x0, y0, x1, y1 = t.bounds()
    ox, oy = (x1 - x0) * dice.uniform(*p.loose), (y1 - y0) * dice.uniform(*p.loose)
    if t.kind == "bbox":
        box = [x0 - ox + dice.gauss(0, j), y0 - oy + dice.gauss(0, j),
               x1 + ox + dice.gauss(0, j), y1 + oy + dice.gauss(0, j)]
        if margin and x0 <= 0.0:
            box[0] = min(box[0], -dice.uniform(1.0, 4.0))
        if margin and x1 >= W:
            box[2] = max(box[2], W + dice.uniform(1.0, 4.0))
        return Shape("bbox", t.label, tuple(round(v, 2) for v in box))
    if t.kind == "polygon":
        cx = sum(q[0] for q in t.points) / len(t.points)
        cy = sum(q[1] for q in t.points) / len(t.points)
        grow = 1 + (ox / max(x1 - x0, 1e-9) + oy / max(y1 - y0, 1e-9))
        pts = tuple((round(cx + (qx - cx) * grow + dice.gauss(0, j), 2),
                     round(cy + (qy - cy) * grow + dice.gauss(0, j), 2)) for qx, qy in t.points)
        return Shape("polygon", t.label, points=pts)
    cx, cy, rx, ry, angle = t.params
    return Shape("ellipse", t.label, (round(cx + dice.gauss(0, j), 2),
                                      round(cy + dice.gauss(0, j), 2),
                                      round(rx + ox + abs(dice.gauss(0, j / 2)), 2),
                                      round(ry + oy + abs(dice.gauss(0, j / 2)), 2),
                                      round(angle + dice.gauss(0, 2.0), 1)))


def _grow(mask: np.ndarray, r: int) -> np.ndarray:
    """Dilate (``r > 0``) or erode (``r < 0``) with a square of side ``2|r| + 1``."""
    if r == 0:
        return mask.copy()
    src = mask if r > 0 else ~mask
    k = abs(r)
    padded = np.pad(src, k, constant_values=r < 0)  # eroding: outside counts as set
    out = np.zeros_like(src)
    for dy in range(2 * k + 1):
        for dx in range(2 * k + 1):
            out |= padded[dy:dy + H, dx:dx + W]
    return out if r > 0 else ~out


def runs(mask: np.ndarray) -> list[int]:
    """Row-major run lengths starting with background, as Potato's mask RLE stores them."""
    flat = mask.ravel(order="C")
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    bounds = np.concatenate(([0], change, [flat.size]))
    counts = [int(n) for n in np.diff(bounds)]
    return ([0, *counts]) if flat[0] else counts


def _paint(dice: Any, p: Profile, scene: Scene) -> dict[str, np.ndarray]:
    """The masks this annotator paints, derived from the truth masks by their habits."""
    out = {}
    for label, truth in scene.masks().items():
        mask = truth | (scene.car_pixels & scene.road_area) \
            if label == "road" and p.paints_over_cars else truth
        mask = _grow(mask, dice.pick(p.grow))
        if label == "road" and p.skips_far_road:
            mask[: scene.horizon + p.skips_far_road] = False
        if label == "sidewalk" and dice.chance(p.skips_sidewalk):
            continue
        if mask.any():
            out[label] = mask
    return out


@dataclass(frozen=True)
class Drawn:
    shapes: tuple[Shape, ...]
    found: tuple[int, ...]
    """Indices into the scene's truth of the objects drawn (same order as ``shapes``)."""
    masks: dict[str, np.ndarray]


def annotate(name: str, scene: Scene, dice: Any) -> Drawn:
    """What ``name`` drew and painted on ``scene``."""
    p = PROFILES[name]
    pairs = []
    for i, t in enumerate(scene.truth):
        miss = p.miss + (p.miss_small if t.height < SMALL else 0.0)
        if dice.chance(miss):
            continue
        x0, _, x1, _ = t.bounds()
        margin = scene.id in EDGE_IMAGES and t.kind == "bbox" and (x0 <= 0.0 or x1 >= W)
        pairs.append((_redraw(dice, p, t, margin), i))
    pairs = dice.shuffled(pairs)
    return Drawn(tuple(s for s, _ in pairs), tuple(i for _, i in pairs),
                 _paint(dice, p, scene))


def mask_json(label: str, mask: np.ndarray) -> dict[str, Any]:
    """Potato's mask shape: pixel RLE ``{counts, size: [h, w]}``, not normalized."""
    return {"type": "mask", "label": label, "color": COLORS[label],
            "rle": {"counts": runs(mask), "size": [H, W]}}


@dataclass(frozen=True)
class Plan:
    scenes: tuple[Scene, ...]
    orderings: dict[str, tuple[str, ...]]
    answers: dict[str, dict[str, Drawn]]


def make_plan(seed: int = SEED) -> Plan:
    """Truth, media and every answer, from one seed: the files, the README and the tests
    all read this one plan. Each annotator draws from their own dice, so changing one
    noise model leaves the others' answers as they were."""
    dice = pw.Dice(seed)
    scenes = tuple(make_scene(i, dice) for i in range(1, N_IMAGES + 1))
    by_id = {s.id: s for s in scenes}
    orderings: dict[str, tuple[str, ...]] = {}
    answers: dict[str, dict[str, Drawn]] = {}
    for k, name in enumerate(ANNOTATORS):
        adice = pw.Dice(seed + 10 + k)
        orderings[name] = tuple(adice.shuffled([s.id for s in scenes]))
        answers[name] = {sid: annotate(name, by_id[sid], adice) for sid in orderings[name]}
    return Plan(scenes, orderings, answers)


# ------------------------------------------------------------------------------ files


def user_state(name: str, plan: Plan) -> dict[str, Any]:
    """``name``'s ``user_state.json``: the ``objects`` and ``segmentation`` answers."""
    dice = pw.Dice(SEED + 20 + ANNOTATORS.index(name))
    start = REVIEW_START + 2400 * ANNOTATORS.index(name)
    labels: dict[str, list[list[Any]]] = {}
    behaviours: dict[str, dict[str, Any]] = {}
    for item, begin, end in pw.sessions(dice, start, plan.orderings[name],
                                        PROFILES[name].seconds):
        drawn = plan.answers[name][item]
        objects = pw.data_pair("objects", [s.to_json() for s in drawn.shapes])
        masks = pw.data_pair("segmentation", [mask_json(label, m)
                                              for label, m in drawn.masks.items()])
        labels[item] = [objects, masks]
        middle = begin + (end - begin) * dice.uniform(0.5, 0.7)
        behaviours[item] = pw.behaviour(item, begin, end, [
            pw.change(middle, "objects", objects[1]),
            pw.change(end - dice.uniform(2, 6), "segmentation", masks[1])])
    return pw.user_state(name, plan.orderings[name], labels, behaviours)


def _labels_yaml(labels: tuple[str, ...]) -> str:
    return "\n".join(f'      - {{name: {n}, color: "{COLORS[n]}"}}' for n in labels)


CONFIG_YAML = f"""\
# Potato 2.x project: objects and road masks on synthetic street pictures, by three
# annotators. Generated by scripts/demo_data/make_images.py (seed {SEED}); do not edit by hand.
annotation_task_name: "{TASK_NAME}"
task_dir: .
data_files:
  - data/images.jsonl
item_properties:
  id_key: id
  text_key: text
output_annotation_dir: annotation_output/
num_annotators_per_item: 3
assignment_strategy: fixed_order
max_annotations_per_item: -1

instance_display:
  fields:
    - key: image
      type: image

annotation_schemes:
  - annotation_type: image_annotation
    name: objects
    description: "Outline every car, person and sign: a box, a polygon for a car seen at
      an angle or a warning triangle, an ellipse for a round sign."
    source_field: image
    tools: [bbox, polygon, ellipse]
    labels:
{_labels_yaml(OBJECT_LABELS)}

  - annotation_type: image_annotation
    name: segmentation
    description: "Paint the road and the sidewalk (not the cars or people on them)."
    source_field: image
    tools: [brush, eraser, fill]
    brush_size: 12
    labels:
{_labels_yaml(MASK_LABELS)}
"""


def _outside(shape: Shape) -> bool:
    x0, y0, x1, y1 = shape.bounds()
    return shape.kind == "bbox" and (x0 < 0 or y0 < 0 or x1 > W or y1 > H)


def readme(plan: Plan) -> str:
    """The folder's README: the truth per picture and each annotator's habits."""
    rows = []
    for s in plan.scenes:
        kinds = {label: sum(t.label == label for t in s.truth) for label in OBJECT_LABELS}
        tools = {k: sum(t.kind == k for t in s.truth) for k in ("bbox", "polygon", "ellipse")}
        small = sum(t.height < SMALL for t in s.truth)
        road = int(s.masks()["road"].sum())
        walk = int(s.masks()["sidewalk"].sum())
        drawn = " | ".join(str(len(plan.answers[n][s.id].shapes)) for n in ANNOTATORS)
        rows.append(f"| {s.id} | {len(s.truth)} | {kinds['car']} / {kinds['person']} / "
                    f"{kinds['sign']} | {tools['bbox']} / {tools['polygon']} / "
                    f"{tools['ellipse']} | {small} | {road} | {walk} | {drawn} |")
    n_truth = sum(len(s.truth) for s in plan.scenes)
    found = {n: sum(len(plan.answers[n][s.id].found) for s in plan.scenes) for n in ANNOTATORS}
    outside = [f"{n} on {s.id}" + (f" ({k} boxes)" if k > 1 else "")
               for s in plan.scenes for n in ANNOTATORS
               if (k := sum(_outside(sh) for sh in plan.answers[n][s.id].shapes))]
    lines = [
        "# Street images: Accord's region and mask demo study",
        "",
        f"A Potato 2.x project folder: {len(plan.scenes)} synthetic street pictures "
        f"(`images/*.png`, {W}×{H}), each annotated by three annotators with two "
        "`image_annotation` schemes:",
        "",
        "- `objects`: cars, people and signs as boxes, polygons and ellipses, normalized "
        "to [0, 1] with the origin top-left (ellipse `rx` is a share of the width, `ry` of "
        "the height);",
        f"- `segmentation`: a `road` and a `sidewalk` mask, RLE over {H}×{W} pixels, "
        "row-major, runs alternating and starting with background.",
        "",
        "Everything here is synthetic and generated by a seeded script:",
        "",
        "    python scripts/demo_data/make_images.py",
        "",
        "which rewrites this folder byte for byte (a test checks that it matches).",
        "",
        "## Known truth",
        "",
        "Each picture is drawn from its truth: sky, building fronts, a road in perspective "
        "with a dashed centre line, sidewalks, then 1-4 cars (a box each; a car seen at an "
        "angle is a trapezoid, outlined with a polygon), 0-3 people (boxes) and 1-2 signs "
        "(a round sign is an ellipse, a warning sign a triangle polygon). The road and "
        "sidewalk masks are the pixels of road and sidewalk left visible (the cars and "
        "people on them are not road). Shapes do not overlap.",
        "",
        "| picture | objects | car / person / sign | bbox / polygon / ellipse | "
        f"lower than {SMALL:.0f} px | road px | sidewalk px | "
        + " | ".join(f"{n} shapes" for n in ANNOTATORS) + " |",
        "|---|---|---|---|---|---|---|" + "---|" * len(ANNOTATORS),
        *rows,
        "",
        f"{' and '.join(EDGE_IMAGES)} have a car cut by the frame edge (its truth box is "
        "the visible part); the boxes drawn on it start a pixel or a few outside the image, "
        "as Potato allows when a box is dragged from the canvas margin, and some of ravi's "
        "loose boxes overshoot the frame too. Boxes reaching outside [0, 1]: "
        f"{', '.join(outside)}.",
        "",
        "## Annotators (noise models against that truth)",
        "",
        "- **ana**: careful. Every coordinate within about a pixel (σ 0.8 px); mask edges "
        "on the true edge or one pixel off.",
        "- **ravi**: sloppy. Loose shapes: every side pushed out by 4-15% of the object's "
        "size, σ 2 px; paints the road straight over the cars on it and both masks 4 px "
        "past their edges (over-segments: low specificity).",
        "- **tomas**: misses objects: 15% of all, plus 40% of those lower than "
        f"{SMALL:.0f} px (people and signs far away); masks 3 px inside their edges, the "
        f"far road (first {PROFILES['tomas'].skips_far_road} rows under the horizon) left "
        "out, the sidewalk left out on about a third of the pictures (under-segments: low "
        "sensitivity).",
        "",
        f"Of {n_truth} truth objects ana drew {found['ana']}, ravi {found['ravi']}, "
        f"tomas {found['tomas']} ({100 * found['tomas'] / n_truth:.0f}%).",
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
    for s in plan.scenes:
        path = f"images/{s.id}.png"
        pw.write_png(out_dir / path, [bytes(row) for row in s.pixels], PALETTE)
        records.append({"id": s.id, "text": f"Street scene {s.id[-2:]}.", "image": path,
                        "width": W, "height": H})
    pw.write_jsonl(out_dir / "data" / "images.jsonl", records)
    for name in ANNOTATORS:
        pw.write_user_state(out_dir, name, user_state(name, plan))


if __name__ == "__main__":
    generate(DEMO_DIR / FOLDER_NAME)
