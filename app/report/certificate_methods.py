"""The certificate's method notes and references (static text; pure, no Qt).

What each contract kind computes, in a paragraph a reviewer can check against the
cited papers. Only kinds present in the certificate get their paragraph; the looks and
agreement paragraphs are always there. The text contains no user strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PARAGRAPHS: dict[str, str] = {
    "looks": (
        "<b>Looks.</b> Every test of a contract runs at a stricter level, so testing again as "
        "labels arrive does not inflate confidence: look k spends (1 − confidence) · 6 / (π² k²) "
        "of the error budget, which sums to the whole budget over all looks (the first look gets "
        "61% of it). Looks are recorded in a hash-chained, append-only ledger; its head hash is "
        "printed in the summary."),
    "selective_risk": (
        "<b>selective_risk.</b> A confidence threshold per cascade tier is chosen on the dev "
        "labels and tested on the cert labels, which nothing else reads. Each test is a "
        "one-sided exact binomial test of “the error among accepted labels is above the "
        "target” [7]; the last tier tries thresholds from the dev choice towards more "
        "permissive ones on a grid fixed in advance and stops at the first failure "
        "(fixed-sequence Learn-then-Test [3])."),
    "ppi": (
        "<b>ppi.</b> Prediction-powered inference [1] corrects the machine's estimate by its "
        "error on the human sample, so the interval is valid however good the machine is. With "
        "equal inclusion probabilities PPI++ with the power-tuned λ is used [2]; with unequal "
        "ones the Horvitz–Thompson difference estimator [8]."),
    "no_worse_than_human": (
        "<b>no_worse_than_human.</b> The alternative annotator test [4]: each person is left out "
        "in turn and the machine and that person are compared with the remaining people by a "
        "one-sided paired t-test with margin ε; Benjamini–Yekutieli [9] controls the false "
        "discovery rate across people. The machine passes when it beats at least half of them."),
    "budget_first": (
        "<b>budget_first.</b> A projection from the dev labels of what the budget could "
        "certify: for each error target, the share of the corpus and the interval widths. It "
        "promises nothing about the labels."),
    "distributional": (
        "<b>distributional.</b> The mean Jensen–Shannon distance (base 2) [10] between the "
        "machine's label distribution and the people's, with a percentile bootstrap interval "
        "over items [11], against a noise ceiling: the same distance between two random halves "
        "of the people on each item."),
    "threshold_legacy": (
        "<b>threshold_legacy.</b> Machine labels above a fixed confidence are accepted with no "
        "test. They are not certified; their error measured on the dev labels is reported."),
    "agreement": (
        "<b>Agreement.</b> Krippendorff's α [5] (with Cohen's and Fleiss' κ [12, 13]) for coded "
        "units; set-based agreement with optimal matching for boxes, segments and cuboids; "
        "STAPLE [6] for masks. Intervals are bootstrap intervals over items [11]."),
}

REFERENCES = (
    "Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., Zrnic, T. (2023). "
    "Prediction-powered inference. <i>Science</i> 382(6671), 669–674.",
    "Angelopoulos, A. N., Duchi, J. C., Zrnic, T. (2023). PPI++: Efficient prediction-powered "
    "inference. arXiv:2311.01453.",
    "Angelopoulos, A. N., Bates, S., Candès, E. J., Jordan, M. I., Lei, L. (2025). Learn then "
    "test: Calibrating predictive algorithms to achieve risk control. <i>The Annals of Applied "
    "Statistics</i> 19(2).",
    "Calderon, N., Reichart, R., Dror, R. (2025). The alternative annotator test for "
    "LLM-as-a-judge: How to statistically justify replacing human annotators with LLMs. "
    "<i>Proceedings of ACL 2025</i>.",
    "Krippendorff, K. (2004). <i>Content Analysis: An Introduction to Its Methodology</i> "
    "(2nd ed.). Sage.",
    "Warfield, S. K., Zou, K. H., Wells, W. M. (2004). Simultaneous truth and performance level "
    "estimation (STAPLE). <i>IEEE Transactions on Medical Imaging</i> 23(7), 903–921.",
    "Clopper, C. J., Pearson, E. S. (1934). The use of confidence or fiducial limits "
    "illustrated in the case of the binomial. <i>Biometrika</i> 26(4), 404–413.",
    "Horvitz, D. G., Thompson, D. J. (1952). A generalization of sampling without replacement "
    "from a finite universe. <i>JASA</i> 47(260), 663–685.",
    "Benjamini, Y., Yekutieli, D. (2001). The control of the false discovery rate in multiple "
    "testing under dependency. <i>The Annals of Statistics</i> 29(4), 1165–1188.",
    "Lin, J. (1991). Divergence measures based on the Shannon entropy. <i>IEEE Transactions on "
    "Information Theory</i> 37(1), 145–151.",
    "Efron, B., Tibshirani, R. J. (1993). <i>An Introduction to the Bootstrap</i>. Chapman & "
    "Hall.",
    "Cohen, J. (1960). A coefficient of agreement for nominal scales. <i>Educational and "
    "Psychological Measurement</i> 20(1), 37–46.",
    "Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. "
    "<i>Psychological Bulletin</i> 76(5), 378–382.",
)


def method_notes(cert: Mapping[str, Any]) -> str:
    """The method notes for the kinds present, then the numbered references."""
    kinds = {str(c.get("kind")) for c in (cert.get("contracts") or {}).values()}
    order = ["looks", "selective_risk", "ppi", "no_worse_than_human", "budget_first",
             "distributional", "threshold_legacy"]
    shown = [k for k in order if k in kinds or (k == "looks" and kinds)] + ["agreement"]
    paragraphs = "".join(f"<p>{PARAGRAPHS[k]}</p>" for k in shown)
    refs = "".join(f"<li>{r.replace('&', '&amp;') if '&amp;' not in r else r}</li>"
                   for r in REFERENCES)
    return ('<h2 style="font-size:14pt;">Method notes</h2>' + paragraphs
            + '<p><b>References</b></p><ol style="font-size:8.5pt;">' + refs + "</ol>")
