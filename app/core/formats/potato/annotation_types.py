"""The annotation types Potato 2.12.1 knows (its schema registry), so a misspelt
``annotation_type`` is refused with the closest known one instead of read as a scheme
Accord has no kind for. ``tests/core/test_potato_annotation_types.py`` checks this list
against Potato's own registry."""

from __future__ import annotations

import difflib

ANNOTATION_TYPES = frozenset({
    "agent_interaction_graph", "agent_scorecard", "audio_annotation", "bdm",
    "belief_elicitation", "bws", "card_sort", "cloze", "code_review", "confidence",
    "conjoint", "consensus_tracking", "constant_sum", "context_attribution", "coreference",
    "ego_network", "emergent_behavior", "episode_annotation", "error_span",
    "event_annotation", "extractive_qa", "failure_attribution", "free_list",
    "geo_annotation", "grounding_eval", "gui_trajectory", "handoff_review",
    "hierarchical_multiselect", "image_annotation", "interlinear_gloss", "likert",
    "list_experiment", "listening_test", "multi_document_event", "multimodal_reasoning",
    "multirate", "multiselect", "number", "pairwise", "price_list", "process_reward",
    "pure_display", "radio", "randomized_response", "range_slider", "ranking",
    "region_caption", "rollout_evaluation", "rubric_eval", "select",
    "semantic_differential", "slider", "soft_label", "span", "span_link",
    "spatial_annotation", "spectrogram_annotation", "speech_transcript", "table_grid",
    "temporal_grounding", "text", "text_edit", "tiered_annotation", "tool_call_review",
    "tool_contention", "trajectory_edit", "trajectory_eval", "tree_annotation",
    "triad_test", "triage", "vas", "video", "video_annotation", "viewer_selection",
    "voice_interaction", "volume_annotation",
})


def closest(annotation_type: str) -> str | None:
    """The known type nearest to a misspelt one, if any is near."""
    found = difflib.get_close_matches(annotation_type, sorted(ANNOTATION_TYPES), n=1,
                                      cutoff=0.6)
    if not found and annotation_type.lower() in ANNOTATION_TYPES:
        return annotation_type.lower()
    prefixed = [t for t in sorted(ANNOTATION_TYPES) if annotation_type.startswith(t)]
    return found[0] if found else (max(prefixed, key=len) if prefixed else None)
