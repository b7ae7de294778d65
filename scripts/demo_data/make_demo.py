"""Generate Accord's bundled demo study: a Potato 2.x project of support-agent reviews.

Run ``python scripts/demo_data/make_demo.py`` to (re)write ``resources/demo/support_triage/``.
The folder is committed; a test regenerates it into a temporary folder and compares
every byte, so the script and the folder cannot drift apart.

Why a generator rather than hand-made files: the demo has to carry a *known truth*
(which agent step is wrong, how resolved each conversation really is) and annotators
with *known* habits, so that what Accord reports about them can be checked. Everything
is derived from one seed with :class:`random.Random`, using only ``random()`` (the one
method Python promises to keep stable across versions), and all timestamps are fixed
offsets from a fixed instant: no wall clock, no hash order, no locale.

The files mirror what Potato 2.x writes (``user_state.json`` is ``json.dump(..., indent=2)``
of ``InMemoryUserState.to_json()``; trace answers are the compact ``JSON.stringify``
string of the scheme's hidden input), including two answers that show Potato issue #167
(a single-choice scheme keeping two chosen options).
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

SEED = 20261130
FOLDER_NAME = "support_triage"
DEMO_DIR = Path(__file__).resolve().parents[2] / "resources" / "demo"
"""Where the app's bundled demos live: the default output, ``<repo>/resources/demo``."""
TASK_NAME = "Support agent triage (Accord demo)"
N_ITEMS = 40
ANNOTATORS = ("amara", "bruno", "chen", "dilnoza")
RESOLUTIONS = ("resolved", "partially_resolved", "not_resolved")
CORRECTNESS = ("correct", "incorrect", "partially_correct")
ERROR_TYPES = ("wrong_tool", "wrong_arguments", "hallucinated_policy", "unnecessary_step")
SEVERITIES = ("minor", "major", "critical")
SEVERITY_WEIGHTS = {"minor": -1, "major": -5, "critical": -10}
HELPFULNESS_SIZE = 5
SINGLE_ANNOTATOR_ITEMS = 2
FOUR_ANNOTATOR_ITEMS = 4
ISSUE_167_ANSWERS = (("bruno", 11), ("chen", 23))
"""(annotator, position in their own ordering) of the two answers that show issue #167."""

CONVERSATION_DAY = date(2025, 11, 3)
"""The day the agent's conversations end; the dates inside them count back from it."""
REVIEW_START = datetime(2025, 11, 10, 9, 0, tzinfo=UTC).timestamp()
"""When the first annotator opens the first item (a fixed instant, not the clock)."""

T = TypeVar("T")


class Dice:
    """Seeded draws built on ``Random.random()`` alone, so output is stable across Pythons.

    ``choice``/``randint``/``shuffle`` may change their algorithms between Python
    versions; ``random()`` may not. Everything here derives from it.
    """

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def unit(self) -> float:
        return self._random.random()

    def chance(self, p: float) -> bool:
        return self.unit() < p

    def pick(self, options: Sequence[T]) -> T:
        return options[int(self.unit() * len(options))]

    def between(self, low: int, high: int) -> int:
        """An integer in ``[low, high]``."""
        return low + int(self.unit() * (high - low + 1))

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * self.unit()

    def shuffled(self, options: Sequence[T]) -> list[T]:
        out = list(options)
        for i in range(len(out) - 1, 0, -1):
            j = int(self.unit() * (i + 1))
            out[i], out[j] = out[j], out[i]
        return out

    def digits(self, n: int) -> str:
        return "".join(str(self.between(0, 9)) for _ in range(n))

    def hex(self, n: int) -> str:
        return "".join("0123456789abcdef"[self.between(0, 15)] for _ in range(n))


# ------------------------------------------------------------------------------ slots

FIRST_NAMES = ("Priya", "Marcus", "Elena", "Tomas", "Aiko", "Jonah", "Fatima", "Lukas",
               "Grace", "Omar", "Sofia", "Daniel", "Mei", "Kwame", "Ingrid", "Rahul",
               "Nadia", "Felix", "Hana", "Diego")
LAST_NAMES = ("sharma", "reed", "petrova", "silva", "tanaka", "brooks", "haddad", "meyer",
              "okafor", "lindqvist", "novak", "garcia", "chen", "mensah", "berg", "iyer")
MAIL_DOMAINS = ("gmail.com", "outlook.com", "fastmail.com", "proton.me", "yahoo.com")
PRODUCTS = (  # name, sku, price, accessory packed separately
    ("wireless earbuds", "EB-200", 79.99, "charging case"),
    ("mechanical keyboard", "KB-87T", 129.00, "keycap puller"),
    ("4K webcam", "WC-4K1", 89.50, "mounting clip"),
    ("espresso grinder", "GR-64F", 219.00, "dosing cup"),
    ("noise-cancelling headphones", "HP-NC7", 249.99, "travel case"),
    ("USB-C dock", "DK-11P", 159.00, "power adapter"),
    ("smart thermostat", "TH-S3", 199.00, "wall plate"),
    ("air purifier", "AP-300", 179.99, "spare filter"),
    ("hiking backpack", "BP-45L", 149.95, "rain cover"),
    ("standing desk frame", "SD-F2", 389.00, "cable tray"),
)
CARRIERS = ("UPS", "FedEx", "DHL", "USPS")
CITIES = (("Memphis", "TN", "381"), ("Louisville", "KY", "402"), ("Columbus", "OH", "432"),
          ("Reno", "NV", "895"), ("Allentown", "PA", "181"), ("Indianapolis", "IN", "462"))
STREETS = ("41 Birch Lane", "1200 Harbor Blvd Apt 5C", "77 Orchard Street", "9 Kestrel Way",
           "315 Mill Road Unit 2", "2280 Cedar Avenue")
PLANS = (("Starter", 29, 600), ("Team", 79, 1500), ("Pro", 149, 3000))
COMPANIES = (("Northwind Analytics GmbH", "DE"), ("Blue Heron Studio Ltd", "GB"),
             ("Kovac & Partners d.o.o.", "SI"), ("Lumen Freight B.V.", "NL"))
PROMOS = (("WINTER20", 20), ("WELCOME15", 15), ("SPRING10", 10), ("LOYAL25", 25))
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")


def short_date(d: date) -> str:
    """``Oct 21``, spelled here because ``strftime('%b')`` depends on the locale."""
    return f"{MONTH_NAMES[d.month - 1][:3]} {d.day}"


@dataclass(frozen=True)
class Slots:
    """The concrete details of one conversation, filled into the templates."""

    name: str
    email: str
    new_email: str
    customer_id: str
    order: str
    product: str
    sku: str
    price: float
    accessory: str
    today: date
    order_date: date
    carrier: str
    tracking: str
    tracking2: str
    city: str
    state: str
    street: str
    zip: str
    plan: str
    plan_price: int
    plan_limit: int
    new_plan: str
    new_plan_price: int
    subscription: str
    invoice: str
    company: str
    vat: str
    promo: str
    pct: int
    card: str
    key_tail: str
    rate: int
    endpoint: str
    months: int
    days_late: int
    shipping_fee: float
    ticket: str

    def fill(self, template: str) -> str:
        values = {k: getattr(self, k) for k in self.__dataclass_fields__}
        values["due_date"] = short_date(self.today - timedelta(days=4))
        values["return_date"] = short_date(self.today - timedelta(days=16))
        values["renew_date"] = short_date(self.today + timedelta(days=9))
        values["last_month"] = MONTH_NAMES[(self.today.month - 2) % 12]
        return template.format(**values)


def tracking_number(carrier: str, dice: Dice) -> str:
    """A tracking number in the carrier's usual shape."""
    if carrier == "UPS":
        return f"1Z{dice.hex(6).upper()}{dice.digits(10)}"
    if carrier == "FedEx":
        return dice.digits(12)
    if carrier == "DHL":
        return dice.digits(10)
    return f"9400{dice.digits(18)}"


def make_slots(dice: Dice) -> Slots:
    first, last = dice.pick(FIRST_NAMES), dice.pick(LAST_NAMES)
    product, sku, price, accessory = dice.pick(PRODUCTS)
    city, state, zip_prefix = dice.pick(CITIES)
    plan_i = dice.between(0, len(PLANS) - 2)
    company, country = dice.pick(COMPANIES)
    promo, pct = dice.pick(PROMOS)
    today = CONVERSATION_DAY - timedelta(days=dice.between(0, 6))
    plan, plan_price, plan_limit = PLANS[plan_i]
    new_plan, new_plan_price, _ = PLANS[plan_i + 1]
    carrier = dice.pick(CARRIERS)
    return Slots(
        name=first,
        email=f"{first.lower()}.{last}@{dice.pick(MAIL_DOMAINS)}",
        new_email=f"{first[0].lower()}{last}@{dice.pick(('hey.com', 'icloud.com', 'pm.me'))}",
        customer_id=f"cus_{dice.hex(10)}",
        order=f"A-{dice.between(10000, 99999)}",
        product=product, sku=sku, price=price, accessory=accessory,
        today=today, order_date=today - timedelta(days=dice.between(8, 24)),
        carrier=carrier,
        tracking=tracking_number(carrier, dice),
        tracking2=tracking_number(carrier, dice),
        city=city, state=state, street=dice.pick(STREETS), zip=f"{zip_prefix}{dice.digits(2)}",
        plan=plan, plan_price=plan_price, plan_limit=plan_limit,
        new_plan=new_plan, new_plan_price=new_plan_price,
        subscription=f"sub_{dice.hex(10)}",
        invoice=f"INV-{today.year}-{dice.digits(5)}",
        company=company, vat=f"{country}{dice.digits(9)}",
        promo=promo, pct=pct,
        card=dice.digits(4),
        key_tail=dice.hex(4),
        rate=int(plan_limit * dice.uniform(1.05, 1.4)) // 10 * 10,
        endpoint=f"https://{last}-{dice.pick(('shop', 'ops', 'billing'))}.example.com/hooks/"
                 f"{dice.pick(('orders', 'events', 'payments'))}",
        months=dice.between(7, 11),
        days_late=dice.between(3, 6),
        shipping_fee=dice.pick((14.95, 19.99, 24.50)),
        ticket=f"T-{dice.between(480000, 489999)}",
    )


# ------------------------------------------------------------------------------ traces


@dataclass(frozen=True)
class Planted:
    """The one wrong step of a conversation: the truth the annotators should find."""

    index: int
    error_type: str
    severity: str
    note: str


@dataclass
class Trace:
    """Builds an agent's steps in the shape Potato's trace displays read."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    planted: Planted | None = None

    def call(self, content: str, tool: str, **arguments: Any) -> None:
        self.steps.append({"role": "assistant", "content": content,
                           "tool_calls": [{"name": tool, "arguments": arguments}]})

    def result(self, tool: str, payload: Any) -> None:
        self.steps.append({"role": "tool", "name": tool, "content": json.dumps(payload),
                           "tool_calls": []})

    def reply(self, content: str) -> None:
        self.steps.append({"role": "assistant", "content": content, "tool_calls": []})

    def acknowledge(self, name: str, dice: Dice) -> None:
        self.reply(dice.pick((f"Thanks for reaching out, {name}. Let me look into this.",
                              f"Hi {name}, sorry about the trouble. Checking now.",
                              f"Thanks, {name}. One moment while I pull up the details.")))

    def close(self, category: str) -> None:
        """The ticket bookkeeping some runs end with, after the reply. The outcome is the
        agent's own view (it never knows its mistakes), not the truth."""
        pending = category in ("shipping_delay", "warranty_claim")
        self.call("Tagging the conversation for reporting.", "tag_conversation",
                  category=category, outcome="pending_followup" if pending else "solved")
        self.result("tag_conversation", {"tagged": True})

    def plant(self, error_type: str, severity: str, note: str) -> None:
        """Mark the step just added as the planted error."""
        self.planted = Planted(len(self.steps) - 1, error_type, severity, note)


Build = Callable[[Slots, Trace, str | None], str]
"""A scenario's agent: fills the trace (planting ``fault`` if given), returns the truth
of the radio question ``resolution``."""


@dataclass(frozen=True)
class Scenario:
    name: str
    texts: tuple[str, ...]
    faults: tuple[str, ...]
    build: Build
    greets: bool = False
    """Always open with an acknowledgement (the core trace alone is under 4 steps)."""


def _iso(d: date) -> str:
    return d.isoformat()


def refund_not_received(s: Slots, t: Trace, fault: str | None) -> str:
    received = s.today - timedelta(days=16)
    t.call(f"I'll look up order {s.order} to check where the return stands.", "lookup_order",
           order_id=s.order)
    t.result("lookup_order", {"order_id": s.order, "status": "return_received",
                              "items": [{"sku": s.sku, "name": s.product, "qty": 1}],
                              "total": s.price, "currency": "USD",
                              "return_received_on": _iso(received), "refund_issued": False})
    amount = round(s.price / 10, 2) if fault == "wrong_arguments" else s.price
    t.call(f"The return arrived on {_iso(received)} and no refund was issued. A received "
           f"return is refunded in full to the original payment method, so I'm refunding "
           f"${amount:.2f}.", "issue_refund", order_id=s.order, amount=amount, currency="USD",
           reason="return_received")
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major",
                f"Refunds ${amount:.2f} instead of the order total ${s.price:.2f}.")
    t.result("issue_refund", {"refund_id": f"re_{s.customer_id[4:12]}", "amount": amount,
                              "status": "pending", "expected_settlement_business_days": 5})
    if fault == "hallucinated_policy":
        t.reply(f"Hi {s.name}, I've refunded ${amount:.2f} for order {s.order}. Under our "
                "Refund Promise it will reach your card within 24 hours, and we add a 15% "
                "store credit to every delayed refund.")
        t.plant("hallucinated_policy", "major",
                "No 24-hour Refund Promise or 15% credit exists; the tool said 5 business days.")
        return "partially_resolved"
    t.reply(f"Hi {s.name}, sorry for the wait. I've issued a refund of ${amount:.2f} for "
            f"order {s.order}; it usually shows on your statement within 5 business days.")
    return "partially_resolved" if fault else "resolved"


def password_reset(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Let me find the account registered to {s.email}.", "lookup_customer",
           email=s.email)
    t.result("lookup_customer", {"customer_id": s.customer_id, "status": "active",
                                 "email_verified": True, "two_factor": "totp",
                                 "email_delivery": "suppressed_after_bounce"})
    if fault == "wrong_tool":
        t.call("The account is active. I'll reset the second factor so the customer can get "
               "back in.", "reset_two_factor", customer_id=s.customer_id)
        t.plant("wrong_tool", "critical",
                "Resets 2FA (a security downgrade) when the problem is the email suppression.")
        t.result("reset_two_factor", {"customer_id": s.customer_id, "two_factor": "disabled"})
    else:
        t.call("Reset emails are being suppressed because an earlier message bounced. I'll "
               "clear the suppression for this address.", "clear_email_suppression",
               email=s.email)
        t.result("clear_email_suppression", {"email": s.email, "suppressed": False})
    t.call("Now sending a fresh password reset link.", "send_password_reset",
           customer_id=s.customer_id)
    delivered = fault is None
    t.result("send_password_reset", {"sent": delivered,
                                     "delivery": "queued" if delivered else "suppressed"})
    t.reply(f"Hi {s.name}, I've sent a new reset link to {s.email}. It's valid for 60 "
            "minutes; if it lands in spam, mark it as not spam so future emails arrive.")
    return "not_resolved" if fault else "resolved"


def shipping_delay(s: Slots, t: Trace, fault: str | None) -> str:
    due = s.today - timedelta(days=4)
    t.call(f"Checking order {s.order} and its shipment.", "lookup_order", order_id=s.order)
    t.result("lookup_order", {"order_id": s.order, "status": "shipped", "carrier": s.carrier,
                              "tracking_number": s.tracking, "promised_by": _iso(due)})
    t.call(f"Pulling the latest {s.carrier} scans.", "track_shipment", carrier=s.carrier,
           tracking_number=s.tracking)
    t.result("track_shipment", {"last_event": "Held at facility: weather delay",
                                "location": f"{s.city}, {s.state}",
                                "last_scan": _iso(s.today - timedelta(days=3)),
                                "new_estimate": _iso(s.today + timedelta(days=2))})
    t.call("The parcel is held by the carrier. I'll open a trace so they prioritise it.",
           "open_carrier_trace", carrier=s.carrier, tracking_number=s.tracking)
    t.result("open_carrier_trace", {"trace_id": f"TR-{s.ticket[2:]}", "status": "open"})
    new_estimate = short_date(s.today + timedelta(days=2))
    if fault == "hallucinated_policy":
        t.reply(f"Hi {s.name}, your parcel is held in {s.city} by a weather delay. Because it "
                "is late, our On-Time Guarantee refunds the full order automatically; you "
                "don't need to do anything.")
        t.plant("hallucinated_policy", "critical",
                "Invents an 'On-Time Guarantee' with an automatic full refund.")
        return "partially_resolved"
    t.reply(f"Hi {s.name}, your parcel is held at the {s.carrier} facility in {s.city} by a "
            f"weather delay. The new estimate is {new_estimate}, and I've opened a carrier "
            "trace. If it hasn't arrived by then, reply here and we'll ship a replacement.")
    return "partially_resolved"


def billing_overcharge(s: Slots, t: Trace, fault: str | None) -> str:
    seats = s.plan_price * 5
    t.call(f"Opening invoice {s.invoice}.", "get_invoice", invoice_id=s.invoice)
    t.result("get_invoice", {"invoice_id": s.invoice, "lines": [
        {"description": f"{s.plan} plan, 5 seats", "amount": seats},
        {"description": f"{s.plan} plan, 5 seats (sync retry)", "amount": seats}],
        "total": seats * 2, "status": "paid"})
    credit = s.plan_price if fault == "wrong_arguments" else seats
    t.call(f"The seat line was billed twice by a sync retry. I'll credit the duplicate line "
           f"of ${credit:.2f}.", "adjust_invoice", invoice_id=s.invoice, credit=credit,
           reason="duplicate_line_item")
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major",
                f"Credits one seat (${credit:.2f}) instead of the duplicated line "
                f"(${seats:.2f}).")
    t.result("adjust_invoice", {"credit_note": f"CN-{s.invoice[4:]}", "amount": credit,
                                "applied_to": "original_payment_method"})
    t.reply(f"Hi {s.name}, you're right: invoice {s.invoice} billed your seats twice. I've "
            f"credited ${credit:.2f} back to your card; the credit note is attached to the "
            "invoice.")
    return "partially_resolved" if fault else "resolved"


def duplicate_charge(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Listing the card charges on order {s.order}.", "list_charges", order_id=s.order)
    t.result("list_charges", {"charges": [
        {"id": f"ch_{s.key_tail}01", "amount": s.price, "status": "captured"},
        {"id": f"ch_{s.key_tail}02", "amount": s.price, "status": "authorized"}]})
    if fault == "wrong_tool":
        t.call("There are two charges, so I'll refund one of them.", "issue_refund",
               order_id=s.order, charge_id=f"ch_{s.key_tail}01", amount=s.price)
        t.plant("wrong_tool", "major",
                "Refunds the captured charge; the second one is only an authorization hold "
                "that should be voided.")
        t.result("issue_refund", {"refund_id": f"re_{s.key_tail}", "status": "pending"})
        t.reply(f"Hi {s.name}, I've refunded one of the two ${s.price:.2f} charges on order "
                f"{s.order}.")
        return "partially_resolved"
    t.call("The second charge is an authorization hold that was never captured. I'll void it "
           "so it drops off sooner.", "void_authorization", charge_id=f"ch_{s.key_tail}02")
    t.result("void_authorization", {"charge_id": f"ch_{s.key_tail}02", "status": "voided"})
    t.reply(f"Hi {s.name}, only one ${s.price:.2f} charge was actually taken; the other was a "
            "temporary hold, which I've released. Your bank should drop it within 1-3 days.")
    return "resolved"


def account_deletion(s: Slots, t: Trace, fault: str | None) -> str:
    deletion = s.today + timedelta(days=30)
    t.call(f"Looking up the account for {s.email}.", "lookup_customer", email=s.email)
    t.result("lookup_customer", {"customer_id": s.customer_id, "status": "active",
                                 "subscription": {"id": s.subscription, "plan": s.plan}})
    t.call("There is an active subscription; it has to be cancelled before deletion.",
           "cancel_subscription", subscription_id=s.subscription, at_period_end=False)
    t.result("cancel_subscription", {"subscription_id": s.subscription, "status": "canceled"})
    if fault == "wrong_tool":
        t.call("Now closing the account.", "deactivate_account", customer_id=s.customer_id)
        t.plant("wrong_tool", "major",
                "Deactivates the account (data kept) instead of scheduling deletion.")
        t.result("deactivate_account", {"customer_id": s.customer_id, "status": "deactivated",
                                        "data_retained": True})
        t.reply(f"Hi {s.name}, your subscription is cancelled and your account is closed.")
        return "not_resolved"
    t.call("Scheduling permanent deletion with the standard 30-day grace period.",
           "schedule_account_deletion", customer_id=s.customer_id, grace_period_days=30)
    t.result("schedule_account_deletion", {"customer_id": s.customer_id,
                                           "deletion_date": _iso(deletion)})
    if fault == "hallucinated_policy":
        t.reply(f"Hi {s.name}, done: your account and all of your data were erased "
                "immediately, and we keep no backups.")
        t.plant("hallucinated_policy", "major",
                f"Claims immediate erasure; deletion is scheduled for {_iso(deletion)}.")
        return "partially_resolved"
    t.reply(f"Hi {s.name}, your subscription is cancelled and your account with all its data "
            f"will be permanently deleted on {short_date(deletion)}. Log in before then if "
            "you change your mind.")
    return "resolved"


def api_rate_limit(s: Slots, t: Trace, fault: str | None) -> str:
    if fault == "wrong_tool":
        t.call(f"Let me check the API key ending in {s.key_tail}.", "rotate_api_key",
               key_suffix=s.key_tail)
        t.plant("wrong_tool", "critical",
                "Rotates (revokes) the customer's live API key instead of reading its usage.")
        t.result("rotate_api_key", {"old_key_revoked": True, "new_key_suffix": s.ticket[-4:]})
    else:
        t.call(f"Checking usage for the API key ending in {s.key_tail}.", "get_api_usage",
               key_suffix=s.key_tail)
        t.result("get_api_usage", {"plan": s.plan, "limit_per_minute": s.plan_limit,
                                   "peak_per_minute_24h": s.rate,
                                   "throttled_requests_24h": s.rate * 7})
    t.call("Looking up the published limits.", "search_kb", query=f"API rate limits {s.plan}")
    t.result("search_kb", {"article": "API rate limits", "excerpt":
                           "Starter: 600 requests/min, Team: 1,500, Pro: 3,000, per API key. "
                           "Throttled requests return 429 with a Retry-After header."})
    if fault == "hallucinated_policy":
        t.reply(f"Hi {s.name}, your {s.plan} key is limited to {s.plan_limit} requests a "
                "minute. Accounts older than a year have limits lifted automatically, so this "
                "will stop on its own next month.")
        t.plant("hallucinated_policy", "major",
                "No automatic limit increase for older accounts exists.")
        return "partially_resolved"
    t.reply(f"Hi {s.name}, the {s.plan} plan allows {s.plan_limit} requests a minute per key "
            f"and you peaked at about {s.rate}. Honour the Retry-After header with backoff, "
            f"spread the load over a second key, or move to {s.new_plan} for a higher limit.")
    return "not_resolved" if fault else "resolved"


def change_address(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Checking whether order {s.order} has shipped.", "lookup_order", order_id=s.order)
    t.result("lookup_order", {"order_id": s.order, "status": "processing",
                              "shipping_address": {"line1": "18 Old Quarry Rd",
                                                   "city": "Dayton", "zip": "45402"}})
    address = {"line1": s.street, "city": s.city, "state": s.state, "zip": s.zip}
    if fault == "wrong_tool":
        t.call("Not shipped yet, so I can update the address.", "update_billing_address",
               customer_id=s.customer_id, address=address)
        t.plant("wrong_tool", "major", "Updates the billing address, not the order's shipping "
                "address.")
        t.result("update_billing_address", {"customer_id": s.customer_id, "updated": True})
        t.reply(f"Hi {s.name}, done: the address is now {s.street}, {s.city}.")
        return "not_resolved"
    if fault == "wrong_arguments":
        address = {**address, "zip": s.zip[::-1]}
    t.call("Not shipped yet, so I can update the address.", "update_shipping_address",
           order_id=s.order, address=address)
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major",
                f"ZIP code {address['zip']} instead of {s.zip}.")
    t.result("update_shipping_address", {"order_id": s.order, "updated": True})
    t.reply(f"Hi {s.name}, order {s.order} will now ship to {s.street}, {s.city}, {s.state}. "
            "You'll get the tracking number by email when it leaves the warehouse.")
    return "partially_resolved" if fault else "resolved"


def cancel_subscription(s: Slots, t: Trace, fault: str | None) -> str:
    renew = s.today + timedelta(days=9)
    t.call(f"Finding the subscription for {s.email}.", "get_subscription", email=s.email)
    t.result("get_subscription", {"subscription_id": s.subscription, "plan": s.plan,
                                  "status": "active", "renews_on": _iso(renew)})
    if fault == "wrong_tool":
        t.call("Stopping the renewal.", "pause_subscription", subscription_id=s.subscription,
               months=3)
        t.plant("wrong_tool", "major",
                "Pauses for 3 months instead of cancelling; billing resumes later.")
        t.result("pause_subscription", {"status": "paused",
                                        "resumes_on": _iso(renew + timedelta(days=90))})
        t.reply(f"Hi {s.name}, your {s.plan} subscription won't renew on {short_date(renew)}.")
        return "not_resolved"
    at_period_end = fault != "wrong_arguments"
    t.call("Cancelling at the end of the current period, as asked.", "cancel_subscription",
           subscription_id=s.subscription, at_period_end=at_period_end)
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major",
                "at_period_end=false cancels today; the customer asked for end of period.")
    t.result("cancel_subscription", {"status": "active" if at_period_end else "canceled",
                                     "cancel_at": _iso(renew if at_period_end else s.today)})
    t.reply(f"Hi {s.name}, your {s.plan} plan is cancelled and won't renew on "
            f"{short_date(renew)}. You keep full access until then.")
    return "partially_resolved" if fault else "resolved"


def damaged_item(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Looking up order {s.order}.", "lookup_order", order_id=s.order)
    t.result("lookup_order", {"order_id": s.order, "status": "delivered",
                              "delivered_on": _iso(s.today - timedelta(days=1)),
                              "items": [{"sku": s.sku, "name": s.product, "qty": 1}]})
    t.call(f"Checking stock for {s.sku} before sending a replacement.", "check_inventory",
           sku=s.sku)
    t.result("check_inventory", {"sku": s.sku, "available": 14, "warehouse": "PHX-2"})
    sku = "TH-S3" if s.sku != "TH-S3" else "AP-300"
    sku = sku if fault == "wrong_arguments" else s.sku
    t.call("In stock. Creating a free replacement.", "create_replacement_order",
           order_id=s.order, sku=sku, quantity=1, reason="damaged_in_transit")
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major", f"Replacement for SKU {sku}, not {s.sku}.")
    t.result("create_replacement_order", {"replacement_order_id": f"{s.order}-R",
                                          "ships_by": _iso(s.today + timedelta(days=1))})
    if fault == "hallucinated_policy":
        t.reply(f"Hi {s.name}, a replacement {s.product} ships tomorrow. Please return the "
                "damaged one within 7 days or the replacement will be charged to your card.")
        t.plant("hallucinated_policy", "major",
                "No return-or-be-charged rule exists for damaged items.")
        return "partially_resolved"
    t.reply(f"Hi {s.name}, I'm sorry it arrived damaged. A replacement {s.product} ships "
            f"tomorrow as order {s.order}-R at no cost; no need to send the broken one back.")
    return "not_resolved" if fault else "resolved"


def two_factor_lockout(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Looking up the account for {s.email}.", "lookup_customer", email=s.email)
    t.result("lookup_customer", {"customer_id": s.customer_id, "two_factor": "totp",
                                 "recovery_codes_remaining": 0,
                                 "identity_verification": "available"})
    if fault == "wrong_tool":
        t.call("I'll send a password reset so they can get back in.", "send_password_reset",
               customer_id=s.customer_id)
        t.plant("wrong_tool", "major",
                "A password reset does not help: the lost factor is the authenticator app.")
        t.result("send_password_reset", {"sent": True})
        t.reply(f"Hi {s.name}, I've sent a password reset link to {s.email}.")
        return "not_resolved"
    t.call("No recovery codes left, so the safe route is identity verification.",
           "start_identity_verification", customer_id=s.customer_id, method="id_document")
    t.result("start_identity_verification", {"link_sent_to": s.email, "expires_in_hours": 24})
    t.reply(f"Hi {s.name}, I've emailed you a secure identity check (valid 24 hours). Once "
            "it's approved, two-factor is reset and you can enrol your new phone.")
    return "resolved"


def invoice_copy(s: Slots, t: Trace, fault: str | None) -> str:
    month = MONTH_NAMES[(s.today.month - 2) % 12]
    earlier = MONTH_NAMES[(s.today.month - 3) % 12]
    t.call(f"Listing invoices for {month}.", "list_invoices", customer_id=s.customer_id,
           month=month)
    t.result("list_invoices", {"invoices": [{"id": s.invoice, "month": month,
                                             "amount": s.plan_price * 5}]})
    invoice = s.invoice[:-1] + str((int(s.invoice[-1]) + 7) % 10) \
        if fault == "wrong_arguments" else s.invoice
    t.call("Adding the company name and VAT number.", "update_invoice_details",
           invoice_id=invoice, company_name=s.company, vat_number=s.vat)
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major", f"Edits {invoice} ({earlier}), not {s.invoice}.")
    t.result("update_invoice_details", {"invoice_id": invoice, "updated": True})
    t.call("Emailing the reissued PDF.", "send_invoice_email", invoice_id=invoice,
           to=s.email)
    t.result("send_invoice_email", {"sent": True})
    t.reply(f"Hi {s.name}, the {month} invoice has been reissued to {s.company} with VAT "
            f"number {s.vat} and emailed to {s.email}.")
    return "partially_resolved" if fault else "resolved"


def plan_upgrade(s: Slots, t: Trace, fault: str | None) -> str:
    t.call("Checking the current subscription.", "get_subscription", email=s.email)
    t.result("get_subscription", {"subscription_id": s.subscription, "plan": s.plan,
                                  "price": s.plan_price, "days_left_in_period": 12})
    prices = {name: price for name, price, _ in PLANS}
    target = s.new_plan
    if fault == "wrong_arguments":
        target = next(p for p in prices if p not in (s.plan, s.new_plan))
    t.call(f"Previewing the change to {target}.", "preview_plan_change",
           subscription_id=s.subscription, new_plan=target)
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major",
                f"Previews {target} instead of the {s.new_plan} plan the customer asked about.")
    new_price = prices[target]
    prorated = round((new_price - s.plan_price) * 12 / 30, 2)
    t.result("preview_plan_change", {"prorated_charge_today": prorated,
                                     "next_invoice_amount": new_price})
    if fault == "hallucinated_policy":
        t.reply(f"Hi {s.name}, upgrades are free until your next billing date, then "
                f"${new_price} a month.")
        t.plant("hallucinated_policy", "major",
                f"Says the upgrade is free; the preview shows ${prorated:.2f} due today.")
        return "not_resolved"
    t.reply(f"Hi {s.name}, it's prorated: upgrading today costs ${prorated:.2f} for the rest "
            f"of this period, then ${new_price} a month from your next invoice.")
    return "partially_resolved" if fault else "resolved"


def promo_code(s: Slots, t: Trace, fault: str | None) -> str:
    discount = round(s.price * s.pct / 100, 2)
    t.call(f"Opening order {s.order}.", "lookup_order", order_id=s.order)
    t.result("lookup_order", {"order_id": s.order, "total": s.price, "promo_applied": None,
                              "placed_on": _iso(s.order_date)})
    t.call(f"Checking whether {s.promo} was valid for it.", "validate_promo_code",
           code=s.promo, order_id=s.order)
    t.result("validate_promo_code", {"valid": True, "discount_pct": s.pct,
                                     "eligible_for_order": True})
    amount = s.price if fault == "wrong_arguments" else discount
    t.call(f"The code was eligible, so I'll refund the {s.pct}% difference.", "issue_refund",
           order_id=s.order, amount=amount, reason="promo_not_applied")
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major",
                f"Refunds the whole order (${amount:.2f}), not the {s.pct}% (${discount:.2f}).")
    t.result("issue_refund", {"refund_id": f"re_{s.key_tail}", "amount": amount,
                              "status": "pending"})
    t.reply(f"Hi {s.name}, {s.promo} should have applied. I've refunded ${amount:.2f} to "
            "your card; it appears within 5 business days.")
    return "partially_resolved" if fault else "resolved"


def missing_item(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Checking the shipments of order {s.order}.", "lookup_order", order_id=s.order)
    t.result("lookup_order", {"order_id": s.order, "shipments": [
        {"tracking_number": s.tracking, "items": [s.product], "status": "delivered"},
        {"tracking_number": s.tracking2, "items": [s.accessory], "status": "in_transit"}]})
    if fault == "wrong_tool":
        t.call(f"The {s.accessory} is missing, so I'll send another one.",
               "create_replacement_order", order_id=s.order, sku=f"{s.sku}-ACC", quantity=1)
        t.plant("wrong_tool", "minor",
                "The accessory is in a second parcel already in transit; should track it, "
                "not send a duplicate.")
        t.result("create_replacement_order", {"replacement_order_id": f"{s.order}-R"})
        t.reply(f"Hi {s.name}, I've sent you a new {s.accessory}; it ships tomorrow.")
        return "partially_resolved"
    t.call(f"The {s.accessory} ships separately; tracking the second parcel.",
           "track_shipment", carrier=s.carrier, tracking_number=s.tracking2)
    t.result("track_shipment", {"status": "out_for_delivery",
                                "estimate": _iso(s.today + timedelta(days=1))})
    t.reply(f"Hi {s.name}, nothing is lost: the {s.accessory} was packed separately and is "
            f"out for delivery with {s.carrier} (tracking {s.tracking2}). It should arrive "
            "tomorrow.")
    return "resolved"


def data_export(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Finding the account for {s.email}.", "lookup_customer", email=s.email)
    t.result("lookup_customer", {"customer_id": s.customer_id, "status": "active"})
    t.call("Checking the data access policy.", "search_kb", query="data access request")
    t.result("search_kb", {"article": "Your data rights", "excerpt":
                           "We answer access requests within 30 days, free of charge. Export "
                           "links expire after 7 days."})
    t.call("Starting the export.", "export_user_data", customer_id=s.customer_id,
           format="json")
    t.result("export_user_data", {"export_id": f"exp_{s.key_tail}", "ready_within_hours": 48,
                                  "delivery": "email_link"})
    if fault == "hallucinated_policy":
        t.reply(f"Hi {s.name}, your request is logged. Exports can take up to 90 days and "
                "carry a $25 administration fee, which we'll invoice separately.")
        t.plant("hallucinated_policy", "critical",
                "Invents a 90-day delay and a $25 fee; the policy says 30 days, free.")
        return "not_resolved"
    t.reply(f"Hi {s.name}, your data export has started. You'll get a download link at "
            f"{s.email} within 48 hours; it stays valid for 7 days.")
    return "resolved"


def warranty_claim(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Looking up the purchase of the {s.product}.", "lookup_order", order_id=s.order)
    bought = s.today - timedelta(days=30 * s.months)
    t.result("lookup_order", {"order_id": s.order, "items": [{"sku": s.sku,
                                                              "name": s.product}],
                              "delivered_on": _iso(bought)})
    t.call("Checking the warranty terms.", "search_kb", query="hardware warranty period")
    t.result("search_kb", {"article": "Warranty", "excerpt":
                           "All hardware carries a 12-month limited warranty from delivery."})
    if fault == "hallucinated_policy":
        t.reply(f"Hi {s.name}, I'm sorry, but our warranty covers 6 months, so a "
                f"{s.months}-month-old {s.product} is no longer eligible.")
        t.plant("hallucinated_policy", "critical",
                "States a 6-month warranty; the knowledge base says 12 months.")
        return "not_resolved"
    t.call("Within 12 months: opening a warranty ticket for the hardware team.",
           "create_ticket", queue="warranty", order_id=s.order,
           summary=f"{s.product} failed after {s.months} months")
    t.result("create_ticket", {"ticket_id": s.ticket, "queue": "warranty", "sla_hours": 48})
    t.reply(f"Hi {s.name}, your {s.product} is still under our 12-month warranty. I've opened "
            f"ticket {s.ticket}; the hardware team will email you a prepaid label within 48 "
            "hours.")
    return "partially_resolved"


def email_change(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Looking up {s.email}.", "lookup_customer", email=s.email)
    t.result("lookup_customer", {"customer_id": s.customer_id, "status": "active",
                                 "email_verified": True})
    new_email = s.new_email.replace(".com", ".cmo").replace(".me", ".em") \
        if fault == "wrong_arguments" else s.new_email
    t.call("Updating the login email; the new address must be verified.", "update_email",
           customer_id=s.customer_id, new_email=new_email, send_verification=True)
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major", f"Typo in the new address: {new_email}.")
    t.result("update_email", {"pending_verification": new_email})
    t.reply(f"Hi {s.name}, I've sent a confirmation link to {new_email}. Your login switches "
            "to it as soon as you click the link.")
    return "not_resolved" if fault else "resolved"


def webhook_failures(s: Slots, t: Trace, fault: str | None) -> str:
    rotated = s.today - timedelta(days=1)
    t.call(f"Pulling delivery logs for {s.endpoint}.", "get_webhook_logs", endpoint=s.endpoint)
    t.result("get_webhook_logs", {"recent_deliveries": [
        {"status": 401, "error": "signature verification failed"}] * 3,
        "signing_secret_rotated_at": f"{_iso(rotated)}T16:42:00Z",
        "retry_policy": {"backoff": "exponential", "window_hours": 72}})
    if fault == "hallucinated_policy":
        t.reply(f"Hi {s.name}, the signing secret was rotated on {short_date(rotated)}. "
                "Failed events are discarded after three attempts, so you'll need to "
                "re-create them by hand.")
        t.plant("hallucinated_policy", "major",
                "Says events are discarded after 3 attempts; they are retried for 72 hours.")
        return "partially_resolved"
    t.reply(f"Hi {s.name}, your signing secret was rotated on {short_date(rotated)}, which is "
            "why signatures fail. Copy the new secret from Settings > Webhooks into your "
            "verifier; failed events are retried for 72 hours, so nothing is lost.")
    return "resolved"


def late_delivery_refund(s: Slots, t: Trace, fault: str | None) -> str:
    t.call(f"Opening order {s.order}.", "lookup_order", order_id=s.order)
    t.result("lookup_order", {"order_id": s.order, "shipping_method": "express",
                              "shipping_fee": s.shipping_fee,
                              "promised_by": _iso(s.today - timedelta(days=s.days_late)),
                              "delivered_on": _iso(s.today)})
    t.call("Checking the express delivery terms.", "search_kb",
           query="express shipping late refund")
    t.result("search_kb", {"article": "Express shipping", "excerpt":
                           "If an express parcel arrives late, we refund the express fee on "
                           "request."})
    amount = round(s.shipping_fee * 10, 2) if fault == "wrong_arguments" else s.shipping_fee
    t.call("It was late, so the express fee is refundable.", "issue_refund", order_id=s.order,
           amount=amount, reason="late_express_delivery")
    if fault == "wrong_arguments":
        t.plant("wrong_arguments", "major",
                f"Refunds ${amount:.2f}; the express fee was ${s.shipping_fee:.2f}.")
    t.result("issue_refund", {"refund_id": f"re_{s.key_tail}", "amount": amount,
                              "status": "pending"})
    t.reply(f"Hi {s.name}, sorry it was {s.days_late} days late. I've refunded "
            f"${amount:.2f} for express shipping.")
    return "resolved"


SCENARIOS = (
    Scenario("refund", (
        "I sent back the {product} from order {order} and your warehouse got it on "
        "{return_date}, but I still haven't seen the ${price:.2f} refund. Can you check?",
        "Where is my refund? Order {order}, returned over two weeks ago. Tracking says you "
        "received it on {return_date}."),
        ("wrong_arguments", "hallucinated_policy"), refund_not_received),
    Scenario("password_reset", (
        "I've clicked 'forgot password' three times and the reset email never shows up. My "
        "login is {email}.",
        "Can't get into my account. The reset link isn't arriving at {email} and it's not in "
        "spam either."),
        ("wrong_tool",), password_reset),
    Scenario("shipping_delay", (
        "My order {order} was supposed to arrive on {due_date} and tracking hasn't moved in "
        "days. What's going on?",
        "Order {order} ({product}) seems stuck. The last scan was in {city} and it was due "
        "{due_date}. I need it this week."),
        ("hallucinated_policy",), shipping_delay),
    Scenario("billing_error", (
        "Invoice {invoice} charged me double what the {plan} plan costs for my 5 seats. "
        "Please fix it.",
        "We're on {plan} with 5 seats but {invoice} is twice the usual amount. Looks like a "
        "billing error."),
        ("wrong_arguments",), billing_overcharge),
    Scenario("duplicate_charge", (
        "I see two charges of ${price:.2f} on my card ending {card} for order {order}. "
        "Please refund the duplicate.",
        "Double charged for order {order}! Two ${price:.2f} payments on my card."),
        ("wrong_tool",), duplicate_charge),
    Scenario("account_deletion", (
        "Please delete my account ({email}) and all of my data. I won't be using the "
        "service anymore.",
        "I want my account closed and my personal data erased, including the subscription. "
        "Account email: {email}."),
        ("wrong_tool", "hallucinated_policy"), account_deletion),
    Scenario("api_rate_limit", (
        "We keep getting HTTP 429 at about {rate} requests a minute. I thought our plan "
        "allowed more. Key ends in {key_tail}.",
        "Our integration is being throttled (429 Too Many Requests) since this morning. API "
        "key ...{key_tail}. What is our actual limit?"),
        ("wrong_tool", "hallucinated_policy"), api_rate_limit),
    Scenario("change_address", (
        "I just moved. Can you change the shipping address on order {order} to {street}, "
        "{city}, {state} {zip}? It hasn't shipped yet.",
        "Please ship order {order} to my new address: {street}, {city} {zip}."),
        ("wrong_tool", "wrong_arguments"), change_address),
    Scenario("cancel_subscription", (
        "Please cancel my {plan} subscription at the end of this billing period. I don't "
        "want it to renew on {renew_date}.",
        "Cancel my plan so it doesn't renew, but let me use it until the period ends."),
        ("wrong_tool", "wrong_arguments"), cancel_subscription),
    Scenario("damaged_item", (
        "The {product} from order {order} arrived with a cracked casing. I'd like a "
        "replacement, not a refund.",
        "My {product} came broken (order {order}). The box was crushed. Can you send a new "
        "one?"),
        ("wrong_arguments", "hallucinated_policy"), damaged_item),
    Scenario("two_factor_lockout", (
        "I lost my phone and can't get my two-factor codes, so I'm locked out. I don't have "
        "the recovery codes either.",
        "New phone, and the authenticator app didn't transfer. I can't log in to {email}."),
        ("wrong_tool",), two_factor_lockout),
    Scenario("invoice_copy", (
        "Our accounting team needs the {last_month} invoice reissued with our company name "
        "({company}) and VAT number {vat}.",
        "Can you add {company}, VAT {vat}, to last month's invoice and send it again?"),
        ("wrong_arguments",), invoice_copy),
    Scenario("plan_upgrade", (
        "If I upgrade from {plan} to {new_plan} today, do I pay the full ${new_plan_price} "
        "right away or is it prorated?",
        "Thinking of moving to {new_plan}. What exactly will I be charged today?"),
        ("wrong_arguments", "hallucinated_policy"), plan_upgrade),
    Scenario("promo_code", (
        "I used code {promo} at checkout for order {order} but the {pct}% discount wasn't "
        "applied. Can I get the difference back?",
        "Your site ignored my {promo} code on order {order}. I was charged the full "
        "${price:.2f}."),
        ("wrong_arguments",), promo_code),
    Scenario("missing_item", (
        "My package for order {order} came today but the {accessory} is missing. The box "
        "only had the {product}.",
        "Order {order} arrived incomplete: no {accessory}."),
        ("wrong_tool",), missing_item),
    Scenario("data_export", (
        "Under GDPR I'd like a copy of all the personal data you hold about me ({email}).",
        "Please send me an export of my account data. How long does that take?"),
        ("hallucinated_policy",), data_export),
    Scenario("warranty_claim", (
        "My {product} stopped working after {months} months. Is it still under warranty? "
        "Order {order}.",
        "The {product} I bought {months} months ago won't power on anymore. Can I get it "
        "repaired or replaced?"),
        ("hallucinated_policy",), warranty_claim),
    Scenario("email_change", (
        "I'd like to change my login email from {email} to {new_email}.",
        "Please switch my account email to {new_email}; I'm closing the old {email} "
        "mailbox."),
        ("wrong_arguments",), email_change),
    Scenario("webhook_failures", (
        "Since yesterday every webhook delivery to {endpoint} fails with a 401. We didn't "
        "change anything on our side.",
        "Webhooks broke overnight: 401 on every event to our endpoint. Are events being "
        "lost?"),
        ("hallucinated_policy",), webhook_failures, greets=True),
    Scenario("late_delivery", (
        "Order {order} arrived {days_late} days late even though I paid ${shipping_fee:.2f} "
        "for express shipping. I'd like that fee refunded.",
        "Paid for express, got it {days_late} days late. Refund the shipping please. Order "
        "{order}."),
        ("wrong_arguments",), late_delivery_refund),
)


# ------------------------------------------------------------------------ conversations


@dataclass(frozen=True)
class Conversation:
    """One item and its truth."""

    id: str
    scenario: str
    text: str
    steps: tuple[dict[str, Any], ...]
    planted: Planted | None
    resolution: str
    helpfulness: int


@dataclass(frozen=True)
class Plan:
    """Everything generated: the items with their truth, and who reviews what."""

    conversations: tuple[Conversation, ...]
    assignments: dict[str, tuple[str, ...]]
    """Annotator → item ids in the order they were shown."""


HELPFULNESS_BY_RESOLUTION = {"resolved": (4, 5, 5), "partially_resolved": (3, 3, 2),
                             "not_resolved": (1, 2, 2)}


def make_conversations(dice: Dice) -> tuple[Conversation, ...]:
    """Each scenario twice (different details, phrasing), shuffled; faults planted in a
    balanced set of conversations whose scenario supports them."""
    pairs = [(sc, k) for sc in SCENARIOS for k in range(N_ITEMS // len(SCENARIOS))]
    pairs = dice.shuffled(pairs)
    faults: list[str | None] = [None] * len(pairs)
    wanted = {"wrong_tool": 4, "wrong_arguments": 5, "hallucinated_policy": 4}
    for kind, n in wanted.items():
        slots = [i for i, (sc, _) in enumerate(pairs) if kind in sc.faults
                 and faults[i] is None]
        for i in dice.shuffled(slots)[:n]:
            faults[i] = kind
    out = []
    for i, ((scenario, variant), fault) in enumerate(zip(pairs, faults, strict=True)):
        slots_ = make_slots(dice)
        trace = Trace()
        if scenario.greets or dice.chance(0.4):
            trace.acknowledge(slots_.name, dice)
        resolution = scenario.build(slots_, trace, fault)
        if len(trace.steps) <= 6 and dice.chance(0.3):
            trace.close(scenario.name)
        if fault is not None and trace.planted is None:
            raise AssertionError(f"{scenario.name} did not plant {fault}")
        if not 4 <= len(trace.steps) <= 8:
            raise AssertionError(f"{scenario.name} has {len(trace.steps)} steps")
        out.append(Conversation(
            id=f"conv-{i + 1:03d}", scenario=scenario.name,
            text=slots_.fill(scenario.texts[variant % len(scenario.texts)]),
            steps=tuple(trace.steps), planted=trace.planted, resolution=resolution,
            helpfulness=dice.pick(HELPFULNESS_BY_RESOLUTION[resolution])))
    return tuple(out)


def assign(conversations: Sequence[Conversation], dice: Dice) -> dict[str, tuple[str, ...]]:
    """Potato's ``least_annotated`` strategy, played out: each item goes to the annotators
    with the fewest items so far (ties broken at random). Most items get 3 people, a few
    get all 4 (an overlap sample) and two get only one (so single coverage shows)."""
    ids = [c.id for c in conversations]
    special = dice.shuffled(ids[2:])
    singles = set(special[:SINGLE_ANNOTATOR_ITEMS])
    quads = set(special[SINGLE_ANNOTATOR_ITEMS:SINGLE_ANNOTATOR_ITEMS + FOUR_ANNOTATOR_ITEMS])
    counts = dict.fromkeys(ANNOTATORS, 0)
    orders: dict[str, list[str]] = {a: [] for a in ANNOTATORS}
    for item in ids:
        k = 1 if item in singles else 4 if item in quads else 3
        ties = {a: dice.unit() for a in ANNOTATORS}
        for a in sorted(ANNOTATORS, key=lambda a: (counts[a], ties[a]))[:k]:
            counts[a] += 1
            orders[a].append(item)
    return {a: tuple(orders[a]) for a in ANNOTATORS}


def make_plan(seed: int = SEED) -> Plan:
    """The whole study's content and truth, before any file is written."""
    conversations = make_conversations(Dice(seed))
    return Plan(conversations, assign(conversations, Dice(seed + 1)))


# -------------------------------------------------------------------------- annotators


@dataclass(frozen=True)
class Profile:
    """An annotator's habits, as probabilities of agreeing with the truth."""

    radio: float
    """P(resolution equals the truth)."""
    likert: float
    """P(helpfulness equals truth + shift); otherwise one point off."""
    likert_shift: int
    step: float
    """P(a correct assistant step is left unflagged); tool outputs are flagged less."""
    catch: float
    """P(the planted wrong step is flagged)."""
    error_type: float
    """P(a caught planted step gets the right error type)."""
    partial: float
    """P(a correct step is marked partially_correct in step_correctness)."""
    blank: float
    """P(a step is left without a correctness label)."""
    seconds: tuple[int, int]
    """Time spent per item."""


PROFILES = {
    "amara": Profile(radio=0.95, likert=0.95, likert_shift=0, step=0.98, catch=0.95,
                     error_type=0.95, partial=0.0, blank=0.0, seconds=(170, 320)),
    "bruno": Profile(radio=0.85, likert=0.85, likert_shift=0, step=0.9, catch=0.85,
                     error_type=0.8, partial=0.02, blank=0.0, seconds=(110, 220)),
    "chen": Profile(radio=0.95, likert=0.8, likert_shift=0, step=0.72, catch=0.35,
                    error_type=0.6, partial=0.0, blank=0.04, seconds=(45, 100)),
    "dilnoza": Profile(radio=0.9, likert=0.9, likert_shift=-1, step=0.96, catch=0.9,
                       error_type=0.85, partial=0.2, blank=0.0, seconds=(140, 260)),
}

FALSE_ALARM_NOTES = {
    "wrong_tool": "Could have answered without this call.",
    "wrong_arguments": "Arguments look off to me.",
    "hallucinated_policy": "Not sure this is actual policy.",
    "unnecessary_step": "Redundant lookup.",
}
HARSH_NOTES = ("Fine, but should confirm the customer's identity first.",
               "Correct, but the wording is curt.", "OK, could explain why.")


@dataclass(frozen=True)
class Answer:
    resolution: str
    first_click: str | None
    """A label clicked before ``resolution``: the #167 answers keep both as chosen; the
    others record a clean switch."""
    helpfulness: int
    rewards: tuple[int, ...]
    judgements: tuple[dict[str, Any], ...]


def _neighbour(dice: Dice, options: Sequence[str], value: str) -> str:
    i = options.index(value)
    near = [options[j] for j in (i - 1, i + 1) if 0 <= j < len(options)]
    return dice.pick(near)


def answer(profile: Profile, c: Conversation, dice: Dice) -> Answer:
    resolution = c.resolution if dice.chance(profile.radio) \
        else _neighbour(dice, RESOLUTIONS, c.resolution)
    help_ = c.helpfulness + profile.likert_shift
    if not dice.chance(profile.likert):
        help_ += dice.pick((-1, 1))
    help_ = min(HELPFULNESS_SIZE, max(1, help_))
    rewards: list[int] = []
    judgements: list[dict[str, Any]] = []
    for i, step in enumerate(c.steps):
        planted = c.planted if c.planted is not None and c.planted.index == i else None
        keep = profile.step if step["role"] == "assistant" else 1 - (1 - profile.step) / 4
        flagged = dice.chance(profile.catch) if planted else not dice.chance(keep)
        rewards.append(-1 if flagged else 1)
        j: dict[str, Any] = {"step_index": i, "correctness": "correct", "error_type": None,
                             "severity": None, "rationale": ""}
        if flagged and planted:
            right_type = dice.chance(profile.error_type)
            j["correctness"] = "incorrect" if dice.chance(0.85) else "partially_correct"
            j["error_type"] = planted.error_type if right_type else dice.pick(
                [e for e in ERROR_TYPES if e != planted.error_type])
            j["severity"] = planted.severity if dice.chance(0.7) \
                else _neighbour(dice, SEVERITIES, planted.severity)
            j["rationale"] = planted.note if right_type else FALSE_ALARM_NOTES[j["error_type"]]
        elif flagged:
            j["correctness"] = dice.pick(("incorrect", "partially_correct"))
            j["error_type"] = dice.pick(ERROR_TYPES)
            j["severity"] = "minor" if dice.chance(0.8) else "major"
            j["rationale"] = FALSE_ALARM_NOTES[j["error_type"]]
        elif dice.chance(profile.partial):
            j["correctness"] = "partially_correct"
            j["severity"] = "minor"
            j["rationale"] = dice.pick(HARSH_NOTES)
        elif dice.chance(profile.blank):
            j["correctness"] = None
        judgements.append(j)
    first_click = None
    if dice.chance(0.08):
        first_click = _neighbour(dice, RESOLUTIONS, resolution)
    return Answer(resolution, first_click, help_, tuple(rewards), tuple(judgements))


def _compact(value: Any) -> str:
    """The hidden input's value, as the browser's ``JSON.stringify`` writes it."""
    return json.dumps(value, separators=(",", ":"))


def _change(when: float, schema: str, label: str, action: str, new_value: Any,
            old_label: str | None = None, old_value: Any = None) -> dict[str, Any]:
    return {"timestamp": round(when, 3), "schema_name": schema, "label_name": label,
            "old_label": old_label, "action": action, "old_value": old_value,
            "new_value": new_value, "source": "user", "phase": None, "page": None}


def user_state(name: str, plan: Plan) -> dict[str, Any]:
    """One annotator's ``user_state.json``, in the key order Potato's ``to_json`` uses."""
    profile = PROFILES[name]
    dice = Dice(SEED + 10 + ANNOTATORS.index(name))
    by_id = {c.id: c for c in plan.conversations}
    ordering = plan.assignments[name]
    issue_167 = {ordering[pos] for who, pos in ISSUE_167_ANSWERS if who == name}
    clock = REVIEW_START + 1800 * ANNOTATORS.index(name)
    behaviour: dict[str, Any] = {}
    labels: dict[str, Any] = {}
    for item in ordering:
        c = by_id[item]
        a = answer(profile, c, dice)
        start = clock
        t = start + dice.uniform(20, 50)
        changes = []
        pairs: list[list[Any]] = []
        first = a.first_click
        if item in issue_167:
            first = first or _neighbour(dice, RESOLUTIONS, a.resolution)
            changes.append(_change(t, "resolution", first, "select", True))
            t += dice.uniform(4, 30)
            # Potato before 2.8 (issue #167): the second click is stored beside the first
            # and no deselect is recorded, so both options stay chosen.
            changes.append(_change(t, "resolution", a.resolution, "select", True))
            pairs.append([{"schema": "resolution", "name": first}, True])
        elif first is not None:
            changes.append(_change(t, "resolution", first, "select", True))
            t += dice.uniform(4, 30)
            changes.append(_change(t, "resolution", a.resolution, "select", True,
                                   old_label=first, old_value=True))
        else:
            changes.append(_change(t, "resolution", a.resolution, "select", True))
        pairs.append([{"schema": "resolution", "name": a.resolution}, True])
        t += dice.uniform(3, 15)
        score = str(a.helpfulness)
        changes.append(_change(t, "helpfulness", score, "select", score))
        pairs.append([{"schema": "helpfulness", "name": score}, score])
        reward = _compact({"steps": [{"index": i, "reward": r} for i, r in enumerate(a.rewards)],
                           "mode": "per_step"})
        t += dice.uniform(15, 60)
        changes.append(_change(t, "step_reward", "step_reward", "update", reward))
        pairs.append([{"schema": "step_reward", "name": "step_reward"}, reward])
        evaluation = _compact({"steps": list(a.judgements), "score": None,
                               "score_complete": False})
        t += dice.uniform(20, 90)
        changes.append(_change(t, "step_correctness", "step_correctness", "update",
                               evaluation))
        pairs.append([{"schema": "step_correctness", "name": "step_correctness"}, evaluation])
        end = max(t + dice.uniform(3, 10), start + dice.uniform(*profile.seconds))
        behaviour[item] = {
            "instance_id": item, "session_start": round(start, 3),
            "session_end": round(end, 3), "total_time_ms": round((end - start) * 1000),
            "interactions": [], "ai_usage": [], "annotation_changes": changes,
            "navigation_history": [], "focus_time_by_element": {},
            "scroll_depth_max": 100.0 if profile.seconds[0] > 100 else 60.0,
            "keyword_highlights_shown": [], "chat_history": [], "typing_summaries": {},
        }
        labels[item] = pairs
        clock = end + dice.uniform(2, 8)
    return {
        "user_id": name,
        "instance_id_ordering": list(ordering),
        "current_instance_index": len(ordering) - 1,
        "current_phase_and_page": ["annotation", None],
        "completed_phase_and_pages": [],
        "max_assignments": -1,
        "instance_id_to_behavioral_data": behaviour,
        "instance_id_to_label_to_value": labels,
        "instance_id_to_span_to_value": {},
        "phase_to_page_to_label_to_value": {},
        "phase_to_page_to_span_to_value": {},
        "training_state": {
            "completed_questions": {}, "total_correct": 0, "total_attempts": 0,
            "total_mistakes": 0, "passed": False, "failed": False,
            "current_question_index": 0, "training_instances": [], "show_feedback": False,
            "feedback_message": "", "allow_retry": False, "max_mistakes": -1,
            "max_mistakes_per_question": -1, "category_scores": {}},
        "qualified_categories": [],
        "category_qualification_scores": {},
        "instance_id_to_keyword_highlight_state": {},
        "instance_id_to_link_to_value": {},
        "instance_id_to_event_to_value": {},
    }


# ------------------------------------------------------------------------------- files

CONFIG_YAML = f"""\
# Potato 2.x project: a customer-support AI agent's conversations, reviewed by four
# annotators. Generated by scripts/demo_data/make_demo.py (seed {SEED}); do not edit by hand.
annotation_task_name: "{TASK_NAME}"
task_dir: .
data_files:
  - data/conversations.jsonl
item_properties:
  id_key: id
  text_key: text
output_annotation_dir: annotation_output/
num_annotators_per_item: 3
assignment_strategy: least_annotated
max_annotations_per_item: -1

instance_display:
  fields:
    - key: text
      type: text
    - key: steps
      type: agent_trace

annotation_schemes:
  - annotation_type: radio
    name: resolution
    description: "Did the agent resolve the customer's issue?"
    labels:
{chr(10).join(f"      - {label}" for label in RESOLUTIONS)}

  - annotation_type: likert
    name: helpfulness
    description: "How helpful was the agent's final reply to the customer?"
    size: {HELPFULNESS_SIZE}
    min_label: "Not helpful"
    max_label: "Very helpful"

  - annotation_type: process_reward
    name: step_reward
    description: "For every agent step: did it move the conversation towards solving the
      customer's issue (+1) or not (-1)?"
    steps_key: steps
    step_text_key: content
    mode: per_step
    allow_neutral: false

  - annotation_type: trajectory_eval
    name: step_correctness
    description: "Judge every agent step. For a step that is not correct, say what went
      wrong and how badly."
    steps_key: steps
    step_text_key: content
    correctness_options: [{", ".join(CORRECTNESS)}]
    error_types:
{chr(10).join(f"      - {e}" for e in ERROR_TYPES)}
    severities:
{chr(10).join(f"      - {{name: {s}, weight: {w}}}" for s, w in SEVERITY_WEIGHTS.items())}
    show_score: false
"""


def readme(plan: Plan) -> str:
    """The folder's README: what the study is and the truth planted in it."""
    per_item: dict[str, int] = {}
    for ids in plan.assignments.values():
        for i in ids:
            per_item[i] = per_item.get(i, 0) + 1
    singles = sorted(i for i, n in per_item.items() if n == 1)
    quads = sorted(i for i, n in per_item.items() if n == 4)
    rows = [f"| {c.id} | {c.scenario} | {c.planted.index} | {c.planted.error_type} | "
            f"{c.planted.severity} | {c.resolution} |"
            for c in plan.conversations if c.planted is not None]
    issue = ", ".join(f"{who} on {plan.assignments[who][pos]}" for who, pos in ISSUE_167_ANSWERS)
    lines = [
        "# Support triage: Accord's demo study",
        "",
        "A Potato 2.x project folder. A customer-support AI agent handled "
        f"{len(plan.conversations)} conversations (refunds, password resets, shipping "
        "delays, billing errors, account deletion, API rate limits, ...); four annotators "
        "reviewed them with four schemes: `resolution` (radio), `helpfulness` (likert 1-5), "
        "`step_reward` (process_reward, per step) and `step_correctness` (trajectory_eval).",
        "",
        "Everything here is synthetic and generated by a seeded script:",
        "",
        "    python scripts/demo_data/make_demo.py",
        "",
        "which rewrites this folder byte for byte (a test checks that it matches).",
        "",
        "## Known truth",
        "",
        "Every agent step is correct except one planted wrong step (0-based index) in "
        "these conversations:",
        "",
        "| item | scenario | wrong step | error type | severity | resolution |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "An over-refund still leaves the customer satisfied, so those conversations are "
        "`resolved` although a step is wrong. Helpfulness truth follows the resolution "
        "(resolved 4-5, partially 2-3, not 1-2).",
        "",
        "Annotators (noise models against that truth):",
        "",
        "- **amara**: careful, about 95% agreement on every scheme.",
        "- **bruno**: decent, about 85%.",
        "- **chen**: fine on `resolution`, sloppy on the step schemes (about 70%); often "
        "misses the planted step.",
        "- **dilnoza**: harsh: helpfulness one point lower; sometimes marks correct steps "
        "`partially_correct`.",
        "",
        "Most items have 3 annotators (Potato's `least_annotated` assignment); "
        f"{', '.join(quads)} have all 4 and {', '.join(singles)} have only one.",
        "",
        f"Two `resolution` answers ({issue}) reproduce Potato issue #167: both clicked "
        "options are stored as chosen; `annotation_changes` shows the later `select`, which "
        "is the annotator's answer.",
        "",
    ]
    return "\n".join(lines)


def generate(out_dir: Path) -> None:
    """Write the study into ``out_dir``, replacing that folder (and nothing else)."""
    if out_dir.exists():
        if any(out_dir.iterdir()) and not (out_dir / "config.yaml").is_file():
            raise FileExistsError(f"{out_dir} is not empty and is not a generated study; "
                                  "refusing to replace it")
        shutil.rmtree(out_dir)
    plan = make_plan()
    data_dir = out_dir / "data"
    data_dir.mkdir(parents=True)
    (out_dir / "config.yaml").write_text(CONFIG_YAML, encoding="utf-8")
    (out_dir / "README.md").write_text(readme(plan), encoding="utf-8")
    with (data_dir / "conversations.jsonl").open("w", encoding="utf-8", newline="\n") as f:
        for c in plan.conversations:
            record = {"id": c.id, "text": c.text, "category": c.scenario,
                      "steps": list(c.steps)}
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    for name in ANNOTATORS:
        folder = out_dir / "annotation_output" / name
        folder.mkdir(parents=True)
        # Potato: json.dump(state, f, indent=2), no trailing newline.
        text = json.dumps(user_state(name, plan), indent=2)
        (folder / "user_state.json").write_text(text, encoding="utf-8", newline="\n")


if __name__ == "__main__":
    generate(DEMO_DIR / FOLDER_NAME)
