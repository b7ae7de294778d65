"""Print what Qt Core asks ICU for, so packaging/smoke can compare ICU's full data with the
bundle's trimmed one (packaging/trim.py, ``trim_icu``): run once as is and once with
``LD_LIBRARY_PATH`` naming a folder that holds only the bundle's ``libicudata``; the two
outputs must be identical.

It covers the ICU calls libQt6Core imports whose data the bundle keeps: collation
(QCollator, with the tailorings of Swedish, Danish, Spanish, Czech, Turkish, Chinese,
Japanese and Korean, numeric mode, case-insensitive), case mapping (Turkish dotted i,
German sharp s, Greek final sigma) and time zone names (long, short and offset, four
locales), and decoding with the codecs Qt implements itself. The code page tables are
left out on purpose (packaging/trim.py, ``ICU_UNUSED``): ``--codecs`` prints which of a
few legacy encodings open, for a look, not for the comparison.
"""

from __future__ import annotations

import functools
import sys

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QCollator,
    QCoreApplication,
    QLocale,
    QStringConverter,
    QStringDecoder,
    Qt,
    QTimeZone,
    QXmlStreamReader,
)

WORDS = ["Äpfel", "apple", "Zebra", "zebra", "ångström", "Öl", "över", "ça", "cote", "côte",
         "coté", "Ñandú", "nube", "中文", "日本", "한국어", "ğ", "İstanbul", "ıssız", "ch", "cz",
         "ll", "lz", "file10", "file9", "file1"]
LOCALES = ["en_US", "de_DE", "sv_SE", "es_ES", "fr_FR", "cs_CZ", "zh_CN", "ja_JP", "ko_KR",
           "tr_TR", "da_DK", "C"]
CODECS = ["UTF-8", "UTF-16LE", "ISO-8859-1", "US-ASCII"]
LEGACY = ["Shift_JIS", "ISO-8859-15", "windows-1252", "GB18030", "KOI8-R", "EUC-KR", "Big5"]
ZONES = [b"Europe/Berlin", b"America/New_York", b"Asia/Tokyo", b"Australia/Lord_Howe", b"UTC"]


def collation() -> None:
    for name in LOCALES:
        collator = QCollator(QLocale(name))
        print(name, sorted(WORDS, key=functools.cmp_to_key(collator.compare)))
        collator.setNumericMode(True)
        collator.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        print(name, "numeric", sorted(WORDS, key=functools.cmp_to_key(collator.compare)))
        locale = QLocale(name)
        print(name, locale.toUpper("istanbul ıi straße"), locale.toLower("İSTANBUL I ΣΑΣ"))


def conversion(codecs: list[str]) -> None:
    for codec in codecs:
        buffer = QBuffer()
        document = f'<?xml version="1.0" encoding="{codec}"?><a>é€abc</a>'
        buffer.setData(QByteArray(document.encode(codec, "replace")))
        buffer.open(QBuffer.OpenModeFlag.ReadOnly)
        reader = QXmlStreamReader(buffer)
        reader.readNextStartElement()
        print(codec, QStringDecoder(codec).isValid(), reader.readElementText(),
              reader.errorString())


def time_zones() -> None:
    kinds = [(t, n) for t in (QTimeZone.TimeType.StandardTime, QTimeZone.TimeType.DaylightTime,
                              QTimeZone.TimeType.GenericTime)
             for n in (QTimeZone.NameType.LongName, QTimeZone.NameType.ShortName,
                       QTimeZone.NameType.OffsetName)]
    for zone_id in ZONES:
        zone = QTimeZone(zone_id)
        for name in ("en_US", "de_DE", "ja_JP", "ar_EG"):
            print(zone_id, name, [zone.displayName(t, n, QLocale(name)) for t, n in kinds])


if __name__ == "__main__":
    app = QCoreApplication(sys.argv)
    if sys.argv[1:] == ["--codecs"]:
        print(len(QStringConverter.availableCodecs()), "codecs named")
        conversion(LEGACY)
    else:
        collation()
        conversion(CODECS)
        time_zones()
