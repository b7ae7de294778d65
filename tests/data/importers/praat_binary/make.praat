# Writes the fixtures of tests/core/importers/test_import_textgrid_binary.py with Praat
# itself: each grid as a binary TextGrid (ana/, ben/) and as a text TextGrid (text/ana/,
# text/ben/), the same objects both ways. Run from this folder:
#     praat --run make.praat
# (Debian's praat 6.3.07; `apt-get install -y praat`.)

procedure grid: .who$, .item$, .shift, .word$
    tg = Create TextGrid: 0, 3.2, "words wörter events", "events"
    Insert boundary: 1, 0.25 + .shift
    Insert boundary: 1, 1.1 + .shift
    Insert boundary: 1, 1.6
    Insert boundary: 1, 2.45 + .shift
    Set interval text: 1, 2, .word$
    Set interval text: 1, 3, "  "
    Set interval text: 1, 4, "ça va ☃"
    Insert boundary: 2, 0.8 + .shift
    Set interval text: 2, 1, "vorne"
    Set interval text: 2, 2, "hinten"
    Insert point: 3, 0.3 + .shift, "click"
    Insert point: 3, 2.9, ""
    createFolder: .who$
    createFolder: "text"
    createFolder: "text/" + .who$
    Save as binary file: .who$ + "/" + .item$ + ".TextGrid"
    Save as text file: "text/" + .who$ + "/" + .item$ + ".TextGrid"
    removeObject: tg
endproc

call grid ana clip1 0 hello
call grid ana clip2 0.05 wörld
call grid ben clip1 0.02 hello
call grid ben clip2 0 world
