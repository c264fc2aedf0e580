"""Files attached to a dispute's evidence: a PDF, PNG or JPEG (recognised by its content, not
its name), at most 700 KiB, at most 5 per dispute, while the dispute needs a response. The
dispute's `evidence.files` lists each one's id, name, type, size and SHA-256; the content is
kept in its own table, read by no list."""
from __future__ import annotations

import base64
import binascii
import hashlib
import re

from tortoise.transactions import in_transaction

from models.money import Dispute, DisputeEvidenceFile
from services.errors import Conflict, NotFound, ValidationError
from services.identity import audit
from services.ids import new_id
from services.infra import clock
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

MAX_BYTES = 700 * 1024
MAX_FILES = 5
TYPES = {"application/pdf": "PDF", "image/png": "PNG", "image/jpeg": "JPEG"}
_NAME = re.compile(r"[^\x00-\x1f\x7f/\\]{1,255}")


def sniff(content: bytes) -> str | None:
    """The type the bytes are, by their signature."""
    if content.startswith(b"%PDF-"):
        return "application/pdf"
    if content.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if content.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    return None


def file_object(f: dict) -> dict:
    return {"id": f["id"], "filename": f["filename"], "content_type": f["content_type"], "size": f["size"],
            "sha256": f["sha256"]}


async def add_file(*, principal: Principal, dispute_id: str, data: dict | None) -> Dispute:
    f = Fields(data or {})
    filename = f.str("filename", required=True, max_len=255)
    content_type = f.str("content_type", required=True, max_len=40)
    encoded = f.str("content_base64", required=True, max_len=2 * MAX_BYTES)
    f.reject_unknown()
    if not _NAME.fullmatch(filename) or filename.strip() in ("", ".", ".."):
        raise ValidationError("filename must be a file name (no slashes or control characters)", param="filename")
    if content_type not in TYPES:
        raise ValidationError("content_type must be one of application/pdf, image/png, image/jpeg",
                              param="content_type")
    try:
        content = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError("content_base64 must be base64 (RFC 4648)", param="content_base64") from None
    if not content:
        raise ValidationError("content_base64 is empty", param="content_base64")
    if len(content) > MAX_BYTES:
        raise ValidationError(f"the file is {len(content)} bytes; at most {MAX_BYTES} (700 KiB)",
                              param="content_base64", code="file_too_large")
    actual = sniff(content)
    if actual is None:
        raise ValidationError("the file is not a PDF, PNG or JPEG", param="content_base64", code="file_type_unsupported")
    if actual != content_type:
        raise ValidationError(f"the file is a {TYPES[actual]}, not {content_type}", param="content_type")
    now = await clock.now_for(principal)
    async with in_transaction():
        d = await Dispute.filter(id=dispute_id, **principal.scope).select_for_update().first() \
            if isinstance(dispute_id, str) else None
        if d is None:
            raise NotFound()
        if d.status != "needs_response":
            raise Conflict(f"Dispute {d.id} cannot take evidence files: its status is {d.status}; files are "
                           "accepted while it needs a response", code="dispute_not_open")
        if now > d.evidence_due_by:
            raise Conflict(f"Dispute {d.id}: evidence was due by {iso(d.evidence_due_by)}", code="dispute_not_open")
        files = list((d.evidence or {}).get("files") or [])
        if len(files) >= MAX_FILES:
            raise ValidationError(f"a dispute takes at most {MAX_FILES} files", param="content_base64",
                                  code="too_many_files")
        row = await DisputeEvidenceFile.create(
            id=new_id("file"), merchant_id=principal.merchant_id, livemode=principal.livemode, dispute_id=d.id,
            filename=filename, content_type=content_type, size=len(content),
            sha256=hashlib.sha256(content).hexdigest(), content=content, created_at=now)
        files.append({"id": row.id, "filename": row.filename, "content_type": row.content_type, "size": row.size,
                      "sha256": row.sha256})
        d.evidence = {**(d.evidence or {}), "files": files}
        d.updated_at = now
        await d.save(update_fields=["evidence", "updated_at"])
        await audit.record(merchant_id=principal.merchant_id, action="dispute.evidence_file_added",
                           principal=principal, object_type="dispute", object_id=d.id,
                           after={"file": row.id, "content_type": content_type, "size": row.size})
    return d
