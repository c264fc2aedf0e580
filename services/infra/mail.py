"""Outgoing e-mail: SMTP when QAFILA_SMTP_URL is set, else the log (development)."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit

log = logging.getLogger("qafila.mail")


@dataclass
class Mail:
    to: str
    subject: str
    text: str
    attachments: list[tuple[str, str, bytes]] = field(default_factory=list)   # (filename, mime type, bytes)


@dataclass
class Mailer:
    """Sends mail; keeps the last few messages so the demo and the tests can read them."""

    smtp_url: str | None = None
    sender: str = "Qafila <no-reply@qafila.local>"
    sent: list[Mail] = field(default_factory=list)

    async def send(self, *, to: str, subject: str, text: str,
                   attachments: list[tuple[str, str, bytes]] | None = None) -> None:
        mail = Mail(to=to, subject=subject, text=text, attachments=list(attachments or []))
        self.sent.append(mail)
        del self.sent[:-200]
        if not self.smtp_url:
            # Development only: without a transport the message (an OTP included) goes to the log.
            log.info("mail to %s: %s\n%s", to, subject, text)
            return
        import aiosmtplib

        parts = urlsplit(self.smtp_url)
        msg = EmailMessage()
        msg["From"] = self.sender
        msg["To"] = to
        msg["Subject"] = subject
        msg.set_content(text)
        for filename, mime, data in mail.attachments:
            maintype, _, subtype = mime.partition("/")
            msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
        await aiosmtplib.send(
            msg,
            hostname=parts.hostname or "127.0.0.1",
            port=parts.port or (465 if parts.scheme == "smtps" else 25),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            use_tls=parts.scheme == "smtps",
            start_tls=False if parts.scheme == "smtp" else None,
            timeout=10,
        )
