"""`grounded show --slides`: one 16:9 slide per turn, the picture's ids in large type and the texts beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from grounded.present.book import collect
from grounded.present.slides import SLIDE, _texts, write_slides

from .inprocess import grounded

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_slide_per_turn_16_by_9_with_the_ids_in_large_type(tmp_path):
    made = write_slides(ROOT / "scenarios" / "phase1.yaml", tmp_path / "slides")
    assert [s.path.name for s in made] == [f"slide-0{t}.png" for t in range(1, 6)]
    for s in made:
        image = Image.open(s.path)
        assert image.size == SLIDE and SLIDE[0] * 9 == SLIDE[1] * 16
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 50  # not blank
        assert s.smallest >= 24, s  # ids and edge labels at 24 px or more on a 1080-line slide


def test_beside_the_picture_what_the_rules_did_and_the_changed_claims_texts():
    conv = collect(ROOT / "scenarios" / "phase2.yaml")
    frame = next(f for f in conv.frames if f.turn == 13)
    lines = _texts(conv.engine, frame)
    assert [t for k, t in lines if k == "did"] == frame.changes
    claims = [t for k, t in lines if k == "claim"]
    assert any(t.startswith("h4: Token bug") for t in claims) and len(claims) == len(frame.changed)


def test_the_command_writes_slides_and_refuses_without_a_folder(tmp_path):
    r = grounded("show", str(ROOT / "scenarios" / "phase1.yaml"), "--slides", "-o", str(tmp_path / "s"))
    assert r.returncode == 0, r.stderr
    assert "wrote 5 slides of 1920x1080 px" in r.stderr and len(list((tmp_path / "s").glob("slide-*.png"))) == 5
    r = grounded("show", str(ROOT / "scenarios" / "phase1.yaml"), "--slides")
    assert r.returncode == 2 and "--slides: give the folder" in r.stderr
    r = grounded("show", str(ROOT / "scenarios" / "phase1.yaml"), "--slides", "--at", "2", "-o", str(tmp_path / "t"))
    assert r.returncode == 2 and "does not take --at" in r.stderr
