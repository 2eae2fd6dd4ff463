"""The writes of `Gateway`: issue comments, commit statuses, check runs, workflow dispatches.

Every write goes through `Transport.send(write=True)`: retried like reads, spaced after the
burst, and a 403 "Resource not accessible by integration" raises `WriteForbidden`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

from reviewcoord import rest
from reviewcoord.github.gateway import (
    CheckConclusion,
    CheckOutput,
    CheckRunRef,
    CheckStatus,
    IssueComment,
    StatusState,
)
from reviewcoord.github.transport import Response, Transport
from reviewcoord.limits import annotation_batches


class Writes:
    """Writes under one repository's `/repos/{owner}/{name}/`."""

    def __init__(self, http: Transport, prefix: str) -> None:
        self._http = http
        self._prefix = prefix

    def _write(self, verb: str, endpoint: str, payload: Any, what: str) -> Response:
        url = f"{self._prefix}/{endpoint}"
        return self._http.send(verb, url, endpoint=endpoint, what=what, body=payload, write=True)

    # ------------------------------------------------------------------ comments and statuses
    def create_issue_comment(self, number: int, body: str) -> IssueComment:
        endpoint = f"issues/{number}/comments"
        resp = self._write("POST", endpoint, {"body": body}, f"create a comment on #{number}")
        return self._issue_comment(resp, endpoint)

    def update_issue_comment(self, comment_id: int, body: str) -> IssueComment:
        endpoint = f"issues/comments/{comment_id}"
        resp = self._write("PATCH", endpoint, {"body": body}, f"update comment {comment_id}")
        return self._issue_comment(resp, endpoint)

    def delete_issue_comment(self, comment_id: int) -> None:
        endpoint = f"issues/comments/{comment_id}"
        self._write("DELETE", endpoint, None, f"delete comment {comment_id}")

    def request_reviewers(self, number: int, logins: list[str]) -> datetime | None:
        endpoint = f"pulls/{number}/requested_reviewers"
        what = f"request a review on #{number} from {', '.join(logins)}"
        resp = self._write("POST", endpoint, {"reviewers": logins}, what)
        data = self._http.decode(resp, endpoint, what)
        return rest.time_or_none(data, "updated_at")

    def _issue_comment(self, resp: Response, endpoint: str) -> IssueComment:
        data = self._http.decode(resp, endpoint, f"write {endpoint}")
        try:
            return rest.issue_comment(data)
        except ValueError as exc:
            self._http.malformed(endpoint, f"write {endpoint}", str(exc))

    def create_status(
        self, sha: str, state: StatusState, description: str, context: str, target_url: str | None
    ) -> None:
        payload: dict[str, Any] = {"state": state, "description": description, "context": context}
        if target_url:
            payload["target_url"] = target_url
        self._write("POST", f"statuses/{sha}", payload, f"set status {context!r} on {sha[:12]}")

    def dispatch_workflow(self, workflow: str, ref: str, inputs: dict[str, str]) -> None:
        endpoint = f"actions/workflows/{quote(workflow, safe='')}/dispatches"
        what = f"start the workflow {workflow} on {ref} with {inputs}"
        self._write("POST", endpoint, {"ref": ref, "inputs": inputs}, what)

    # ------------------------------------------------------------------ check runs
    def create_check_run(
        self,
        name: str,
        head_sha: str,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
        external_id: str | None = None,
    ) -> CheckRunRef:
        outputs = _outputs(output) if output is not None else []
        single = len(outputs) <= 1
        payload: dict[str, Any] = {
            "name": name,
            "head_sha": head_sha,
            "status": status if single else "in_progress",
        }
        if conclusion is not None and single:
            payload["conclusion"] = conclusion
        if external_id:
            payload["external_id"] = external_id
        if outputs:
            payload["output"] = outputs[0]
        resp = self._write("POST", "check-runs", payload, f"create check run {name!r}")
        data = self._http.decode(resp, "check-runs", "create check run")
        try:
            ref = rest.check_run_ref(data)
        except ValueError as exc:
            self._http.malformed("check-runs", "create check run", str(exc))
        if len(outputs) > 1:
            # More annotations than one request takes: append the rest, completing with the
            # last request.
            self._patch_check_run(ref.id, status, outputs[1:], conclusion)
            ref = ref.model_copy(update={"status": "completed" if conclusion else status})
        return ref

    def update_check_run(
        self,
        check_run_id: int,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
    ) -> None:
        outputs = _outputs(output) if output is not None else [None]
        self._patch_check_run(check_run_id, status, outputs, conclusion)

    def _patch_check_run(
        self,
        check_run_id: int,
        status: CheckStatus,
        outputs: list[dict[str, Any]] | list[None],
        conclusion: CheckConclusion | None,
    ) -> None:
        """One PATCH per output; only the last sets `status` and `conclusion`, so the run is
        not completed before all its annotations are on it."""
        for index, out in enumerate(outputs):
            last = index == len(outputs) - 1
            payload: dict[str, Any] = {"status": status if last else "in_progress"}
            if conclusion is not None and last:
                payload["conclusion"] = conclusion
            if out is not None:
                payload["output"] = out
            self._write(
                "PATCH",
                f"check-runs/{check_run_id}",
                payload,
                f"update check run {check_run_id}",
            )


def _outputs(output: CheckOutput) -> list[dict[str, Any]]:
    """The `output` objects to send, one per annotation batch (reviewcoord/limits.py): GitHub
    appends the annotations of each request, so the first carries the first batch and each
    further one the next. Without annotations, one output with no `annotations` key."""
    base: dict[str, Any] = {"title": output.title, "summary": output.summary}
    if output.text is not None:
        base["text"] = output.text
    batches = annotation_batches([a.model_dump() for a in output.annotations])
    return [{**base, "annotations": batch} if batch else base for batch in batches]
