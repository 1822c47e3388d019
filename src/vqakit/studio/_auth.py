"""Who is asking: token links, signed session cookies, per-session CSRF tokens.

One key per user (a file, 0600, created on first use; `VQAKIT_STUDIO_KEY` names another file)
signs everything, so links and sessions survive a restart of the server: a person's token is
an HMAC of their name and role, a session cookie is signed, and the CSRF token of a session is
an HMAC of the session's nonce. Deleting the key file revokes every link and session.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from vqakit.studio._people import ROLES, Role

KEY_ENV = "VQAKIT_STUDIO_KEY"


def key_path() -> Path:
    """The key file: $VQAKIT_STUDIO_KEY, else $XDG_CONFIG_HOME/vqakit/studio.key (~/.config)."""
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV])
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return config / "vqakit" / "studio.key"


def load_key(path: Path | None = None) -> bytes:
    """The signing key, created (32 random bytes, readable by the user only) when missing."""
    path = path or key_path()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process made it first
        else:
            with os.fdopen(handle, "wb") as out:
                out.write(secrets.token_bytes(32))
    key = path.read_bytes()
    if len(key) < 16:
        raise ValueError(f"{path}: the studio key is too short; delete the file to make a new one")
    return key


@dataclass(frozen=True)
class Identity:
    """A session: the person (None until someone logs in on a loopback server), their role, and
    the nonce the session's CSRF token is derived from."""

    person: str | None
    role: Role
    nonce: str


class Signer:
    def __init__(self, key: bytes) -> None:
        self._key = key

    def _mac(self, text: str) -> str:
        return hmac.new(self._key, text.encode("utf-8"), hashlib.sha256).hexdigest()

    def token(self, name: str, role: Role) -> str:
        """A person's link token (stable while the key file stays)."""
        return self._mac(f"token|{role}|{name}")[:32]

    def fresh(self, person: str | None, role: Role = "reviewer") -> Identity:
        return Identity(person, role, secrets.token_hex(16))

    def bearer(self, person: str, role: Role, token: str) -> Identity:
        """The session of a script that sends its token with every request."""
        return Identity(person, role, "bearer-" + hashlib.sha256(token.encode()).hexdigest()[:24])

    def cookie(self, identity: Identity) -> str:
        payload = base64.urlsafe_b64encode(
            json.dumps([identity.person, identity.role, identity.nonce]).encode()
        ).decode()
        return f"{payload}.{self._mac('cookie|' + payload)}"

    def read_cookie(self, value: str | None) -> Identity | None:
        if not value or "." not in value:
            return None
        payload, _, mac = value.rpartition(".")
        if not hmac.compare_digest(mac, self._mac("cookie|" + payload)):
            return None
        try:
            person, role, nonce = json.loads(base64.urlsafe_b64decode(payload.encode()))
        except (ValueError, TypeError):
            return None
        if role not in ROLES or not isinstance(nonce, str) or not (person is None or isinstance(person, str)):
            return None
        return Identity(person, role, nonce)

    def csrf(self, identity: Identity) -> str:
        return self._mac(f"csrf|{identity.nonce}|{identity.person or ''}|{identity.role}")[:40]

    def csrf_ok(self, identity: Identity, given: str | None) -> bool:
        return bool(given) and hmac.compare_digest(str(given), self.csrf(identity))
