"""Who is asking: token links, signed session cookies, per-session CSRF tokens.

One key per user (a file, 0600, created on first use; `VQAKIT_STUDIO_KEY` names another file)
signs everything, so links and sessions survive a restart of the server. What is signed binds
each link and session to:
- the studio's folders (`scope`: a digest of the benchmarks' locations): a link given for one
  benchmark opens no studio started on another, even for the same person name;
- an expiry (`expires`, seconds since the epoch) written in the link and the session;
- the person's generation: `revoke(NAME)` counts it up (in a file beside the key), which ends
  every link and session that person was given before, and no one else's.
A token reads `NAME~EXPIRES~MAC`; a session cookie is signed JSON; the CSRF token of a session is
an HMAC of the session's nonce. Deleting the key file ends every link and session at once.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from vqakit.files import write_text_atomic
from vqakit.studio._people import ROLES, Role, check_person

KEY_ENV = "VQAKIT_STUDIO_KEY"
SESSION_S = 12 * 3600  # a session opened by name on a loopback studio
_SEPARATOR = "~"  # not in a person's name


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


def revocations_path(key_file: Path) -> Path:
    """Where the people's generations are kept: beside the key file."""
    return key_file.with_name(key_file.name + ".revoked.json")


def read_generations(key_file: Path) -> dict[str, int]:
    """{person: how many times their links were revoked} (a file that cannot be read: ValueError
    naming it; a studio must not start with revoked links working again)."""
    path = revocations_path(key_file)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: cannot read the revoked links ({error}); fix or remove the file") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object of revoked people; fix or remove the file")
    found = {}
    for name, entry in data.items():
        generation = entry.get("generation") if isinstance(entry, dict) else None
        if not isinstance(generation, int) or isinstance(generation, bool):
            raise ValueError(f"{path}: {name!r}: no whole-number generation; fix or remove the file")
        found[name] = generation
    return found


def revoke(key_file: Path, name: str) -> int:
    """End every link and session `name` was given (in any studio signed with this key); returns
    their new generation. Under a lock, so two processes revoking at once both count."""
    check_person(name)
    path = revocations_path(key_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        read_generations(key_file)  # refuses a damaged file rather than overwriting it
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        entry = data.get(name) or {}
        generation = int(entry.get("generation", 0)) + 1
        data[name] = {"generation": generation, "revoked_at": datetime.now(UTC).isoformat(timespec="seconds")}
        write_text_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return generation


@dataclass(frozen=True)
class Identity:
    """A session: the person (None until someone logs in on a loopback server), their role, the
    nonce the session's CSRF token is derived from, and when it ends (seconds since the epoch)."""

    person: str | None
    role: Role
    nonce: str
    expires: int = 0


class Signer:
    """Signs and checks a studio's links and sessions (see the module's notes)."""

    def __init__(
        self,
        key: bytes,
        *,
        scope: str = "",
        expires: int | None = None,
        generations: dict[str, int] | None = None,
    ) -> None:
        self._key = key
        self.scope = scope
        self.expires = expires if expires is not None else int(time.time()) + 14 * 86400
        self.generations = dict(generations or {})

    def _mac(self, text: str) -> str:
        return hmac.new(self._key, text.encode("utf-8"), hashlib.sha256).hexdigest()

    def _bound(self, kind: str, person: str | None, role: str, expires: int) -> str:
        generation = self.generations.get(person or "", 0)
        return f"{kind}|{self.scope}|{role}|{person or ''}|{generation}|{expires}"

    def token(self, name: str, role: Role, expires: int | None = None) -> str:
        """A person's link token, valid until `expires` (default: the studio's) in studios on
        the same folders, until their links are revoked."""
        expires = self.expires if expires is None else expires
        mac = self._mac(self._bound("token", name, role, expires))[:32]
        return f"{name}{_SEPARATOR}{expires}{_SEPARATOR}{mac}"

    def read_token(self, token: str, roles: dict[str, Role]) -> tuple[str, int] | None:
        """(the person, the expiry) of a valid token of one of `roles` ({name: role}); None for
        a forged, expired, revoked or foreign one."""
        parts = token.split(_SEPARATOR)
        if len(parts) != 3 or not parts[1].isdigit() or len(parts[1]) > 12:
            return None
        name, expires = parts[0], int(parts[1])
        role = roles.get(name)
        if role is None or expires <= time.time():
            return None
        if not hmac.compare_digest(parts[2], self._mac(self._bound("token", name, role, expires))[:32]):
            return None
        return name, expires

    def fresh(self, person: str | None, role: Role = "reviewer", expires: int | None = None) -> Identity:
        """A new session (default: ends after SESSION_S, or with the studio's links)."""
        if expires is None:
            expires = (
                min(int(time.time()) + SESSION_S, self.expires) if person else int(time.time()) + SESSION_S
            )
        return Identity(person, role, secrets.token_hex(16), expires)

    def bearer(self, person: str, role: Role, token: str, expires: int) -> Identity:
        """The session of a script that sends its token with every request."""
        return Identity(person, role, "bearer-" + hashlib.sha256(token.encode()).hexdigest()[:24], expires)

    def cookie(self, identity: Identity) -> str:
        payload = base64.urlsafe_b64encode(
            json.dumps([identity.person, identity.role, identity.nonce, identity.expires]).encode()
        ).decode()
        bound = self._bound("cookie", identity.person, identity.role, identity.expires)
        return f"{payload}.{self._mac(bound + '|' + payload)}"

    def read_cookie(self, value: str | None) -> Identity | None:
        """The session of a cookie, or None: forged, expired, revoked or of another studio."""
        if not value or "." not in value or len(value) > 4096:
            return None
        payload, _, mac = value.rpartition(".")
        try:
            person, role, nonce, expires = json.loads(base64.urlsafe_b64decode(payload.encode()))
        except (ValueError, TypeError):
            return None
        if role not in ROLES or not isinstance(nonce, str) or not (person is None or isinstance(person, str)):
            return None
        if not isinstance(expires, int) or isinstance(expires, bool) or expires <= time.time():
            return None
        bound = self._bound("cookie", person, role, expires)
        if not hmac.compare_digest(mac, self._mac(bound + "|" + payload)):
            return None
        return Identity(person, role, nonce, expires)

    def csrf(self, identity: Identity) -> str:
        return self._mac(f"csrf|{identity.nonce}|{identity.person or ''}|{identity.role}")[:40]

    def csrf_ok(self, identity: Identity, given: str | None) -> bool:
        return bool(given) and hmac.compare_digest(str(given), self.csrf(identity))
