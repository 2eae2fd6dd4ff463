"""review-coordinator: the judge over the AI pull-request reviewers.

Pipeline: RawComment → (bots/) ParsedComment/Finding → (normalize) → (group) Group →
(rank, gate) Verdict → (render) text → (publish) GitHub surfaces.
"""

__version__ = "0.1.0"
