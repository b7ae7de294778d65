"""Signed certificates: an Ed25519 signature of the certificate's data, by a key its author keeps.

A content hash proves nothing against someone who edits the data: they recompute it. A
signature does: only the holder of the private key can make one that the public key
accepts. ``accord keygen`` makes the key pair in the user's settings folder (the folder the
desktop app keeps its settings in: ``$XDG_CONFIG_HOME/Accord``, else ``~/.config/Accord``;
``%APPDATA%\\Accord`` on Windows), the private key readable by its owner only (0600).
``accord certificate --sign`` attaches a signature next to the certificate; ``accord verify
--key PUB`` checks it against the public key a client was given.

What is signed is the canonical JSON of the certificate (:func:`~app.core.certificate.build.
canonical_json`, its ``content_hash`` included): the data, not the bytes of one rendering.

The signature is a small JSON document attached as :data:`SIGNATURE_NAME`:
``{"format", "algorithm": "Ed25519", "public_key": base64 (32 bytes), "key_id": the first 16
hex digits of the SHA-256 of the public key, "signature": base64 (64 bytes)}``. The public key
in it says who claims to have signed; only ``--key`` says whether that is someone you trust.

Choices: PEM files (PKCS #8 for the private key, unencrypted; SubjectPublicKeyInfo for the
public one), readable by OpenSSL; a private key others can read is refused, as ssh does;
``keygen`` never overwrites a key unless told to (``--force``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from app.core.atomic import write_atomically
from app.core.certificate.build import canonical_json
from app.core.errors import InputError

SIGNATURE_NAME = "accord-certificate.sig"
SIGNATURE_FORMAT = "accord-signature-v1"
PRIVATE_NAME = "signing-key.pem"
PUBLIC_NAME = "signing-key.pub.pem"


def settings_folder() -> Path:
    """Where the desktop app keeps its settings (QSettings' INI user scope, 'Accord')."""
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "Accord"
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "Accord"


def key_id(public: Ed25519PublicKey) -> str:
    """The first 16 hex digits of the SHA-256 of the raw public key: how a key is named."""
    return hashlib.sha256(_raw(public)).hexdigest()[:16]


def _raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def generate_keys(folder: Path, force: bool = False) -> tuple[Path, Path, str]:
    """A new key pair in ``folder``: (private path, public path, key id)."""
    private_path, public_path = folder / PRIVATE_NAME, folder / PUBLIC_NAME
    if not force and (private_path.exists() or public_path.exists()):
        raise InputError(
            "a signing key is already there; keep it (certificates signed with it verify "
            "only with it) or pass --force to replace it",
            file=private_path,
        )
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        _write_private(private_path, private_pem)
        write_atomically(public_path, public_pem)
    except OSError as exc:
        raise InputError(f"cannot write the key ({exc.strerror})", file=folder) from exc
    return private_path, public_path, key_id(key.public_key())


def _write_private(path: Path, data: bytes) -> None:
    """Written to a 0600 temporary file (never readable by others, not even for a moment),
    synced, then renamed over ``path``."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        if hasattr(os, "fchmod"):  # a umask cannot have widened it, but be sure
            os.fchmod(fd, 0o600)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    temporary.replace(path)


def _read(path: Path) -> bytes:
    try:
        if path.stat().st_size > 64 * 1024:
            raise InputError("too large for a key file", file=path)
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the key ({exc.strerror})", file=path) from exc


def load_private(path: Path) -> Ed25519PrivateKey:
    """The private key at ``path``; refused when others may read it or it is not Ed25519."""
    data = _read(path)
    mode = path.stat().st_mode
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(
            f"the private key's permissions {stat.S_IMODE(mode):04o} let others read it; "
            "expected 0600 (chmod 600)",
            file=path,
        )
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise InputError("not an unencrypted PEM private key", file=path) from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise InputError("not an Ed25519 key (made by 'accord keygen')", file=path)
    return key


def load_public(path: Path) -> Ed25519PublicKey:
    """The public key at ``path`` (PEM, as ``accord keygen`` writes it)."""
    data = _read(path)
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise InputError("not a PEM public key", file=path) from exc
    if not isinstance(key, Ed25519PublicKey):
        raise InputError("not an Ed25519 public key (made by 'accord keygen')", file=path)
    return key


def sign(certificate: dict[str, Any], key: Ed25519PrivateKey) -> bytes:
    """The signature document (JSON bytes) for ``certificate``."""
    public = key.public_key()
    document = {
        "format": SIGNATURE_FORMAT,
        "algorithm": "Ed25519",
        "public_key": base64.b64encode(_raw(public)).decode("ascii"),
        "key_id": key_id(public),
        "signature": base64.b64encode(key.sign(canonical_json(certificate))).decode("ascii"),
    }
    return json.dumps(document, indent=1).encode("utf-8")


def _document(raw: bytes) -> tuple[Ed25519PublicKey, bytes] | str:
    """(claimed public key, signature) from a signature attachment, or what is wrong."""
    try:
        doc = json.loads(raw.decode("utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != SIGNATURE_FORMAT:
            return f"the signature is not an Accord signature (expected {SIGNATURE_FORMAT})"
        if doc.get("algorithm") != "Ed25519":
            return f"the signature's algorithm {doc.get('algorithm')!r} is not Ed25519"
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(doc["public_key"]))
        return public, base64.b64decode(doc["signature"], validate=True)
    except (UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        return f"the signature cannot be read ({exc.__class__.__name__}: {exc})"


def signature_check(
    certificate: dict[str, Any], raw: bytes | None, trusted: Ed25519PublicKey | None
) -> tuple[list[str], list[str]]:
    """(problems, notes) for a certificate's signature attachment ``raw`` (``None``: none).

    With ``trusted`` (``verify --key``) the certificate must be signed by that key; without
    it a signature present must still be valid, and a note names the key that made it."""
    if raw is None:
        if trusted is None:
            return [], ["the certificate is not signed"]
        return [
            f"the certificate is not signed ({SIGNATURE_NAME} is not attached), and "
            f"--key asks for a signature by key {key_id(trusted)}"
        ], []
    found = _document(raw)
    if isinstance(found, str):
        return [found], []
    public, signature = found
    try:
        public.verify(signature, canonical_json(certificate))
    except InvalidSignature:
        return [
            f"the signature by key {key_id(public)} does not match the attached "
            "certificate: the data were changed after signing, or the signature was "
            "copied from another certificate"
        ], []
    if trusted is None:
        return [], [
            f"signed by key {key_id(public)} (pass --key with its public key to "
            "check it is a key you trust)"
        ]
    if _raw(public) != _raw(trusted):
        return [
            f"signed by key {key_id(public)}, not by the key given with --key ({key_id(trusted)})"
        ], []
    return [], [f"signed by key {key_id(trusted)}, the key given with --key"]
