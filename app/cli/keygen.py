"""``accord keygen [--dir DIR] [--force]``: the Ed25519 key pair that signs certificates.

The keys go to the user's settings folder (:func:`app.core.certificate.signing.
settings_folder`) unless ``--dir`` says otherwise; the private key is 0600 and never
overwritten without ``--force`` (certificates signed with it verify only with it). Exit 0
when written, 2 when a key is already there or the folder cannot be written.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_keygen_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    keygen = commands.add_parser(
        "keygen", help="make the Ed25519 key pair that signs certificates (certificate --sign)"
    )
    keygen.add_argument(
        "--dir", type=Path, metavar="DIR", help="where to write it (default: the settings folder)"
    )
    keygen.add_argument("--force", action="store_true", help="replace an existing key pair")


def run_keygen(args: argparse.Namespace) -> int:
    from app.core.certificate.signing import generate_keys, settings_folder

    folder: Path = args.dir if args.dir is not None else settings_folder()
    private, public, ident = generate_keys(folder, force=args.force)
    print(
        f"wrote the private key {private} (readable by you only) and the public key {public}; "
        f"key {ident}. Sign with 'accord certificate PROJECT -o FILE.pdf --sign'; give the "
        f"public key to whoever checks with 'accord verify FILE.pdf --key {public.name}'"
    )
    return 0
