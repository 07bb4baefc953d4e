"""The compatibility gate: `make lint` runs `buf breaking` (buf.yaml's FILE rules) on the protos against the
newest released contract in proto/releases/, and the REST routes of its RPCs (google.api.http rules, which
buf does not compare) must stay as released. The protos pass it; a copy of them with one change at a time
shows what it stops (a deleted or renamed field, a changed type or number, a changed JSON name, a renamed
RPC, a changed package option) and what it lets
through (new fields, new RPCs, field behaviour annotations)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest
from google.api import annotations_pb2
from google.protobuf import descriptor_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto"
BUF = Path(sys.executable).parent / "buf"
RELEASES = sorted(
    (PROTO / "releases").glob("gamerules-v1-*.binpb"),
    key=lambda path: tuple(int(part) for part in path.stem.rsplit("-", 1)[1].split(".")),
)


def _image(proto_root: Path, out: Path) -> Path:
    files = sorted(str(path) for path in (proto_root / "gamerules" / "v1").glob("*.proto"))
    includes = [f"-I{proto_root}", f"-I{sysconfig.get_paths()['purelib']}"]
    command = [sys.executable, "-m", "grpc_tools.protoc", *includes, "--include_imports", f"--descriptor_set_out={out}"]
    subprocess.run([*command, *files], check=True, capture_output=True, text=True)
    return out


def _routes(image: Path) -> dict[str, str]:
    """Each RPC's google.api.http rule, by the RPC's full name: its REST route, which buf does not compare."""
    files = descriptor_pb2.FileDescriptorSet.FromString(image.read_bytes()).file
    return {
        f"{file.package}.{service.name}.{method.name}": str(method.options.Extensions[annotations_pb2.http])
        for file in files
        if file.package == "gamerules.v1"
        for service in file.service
        for method in service.method
    }


def _lost_routes(image: Path) -> list[str]:
    """The released RPCs whose REST route the image changed or dropped."""
    now = _routes(image)
    return [name for name, rule in _routes(RELEASES[-1]).items() if now.get(name) != rule]


def _breaking(image: Path) -> subprocess.CompletedProcess[str]:
    command = [str(BUF), "breaking", str(image), "--against", str(RELEASES[-1]), "--config", str(PROTO / "buf.yaml")]
    command += ["--path", "gamerules/v1", "--error-format=text"]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def _sub(pattern: str, replacement: str | Callable[[re.Match[str]], str]) -> Callable[[str], str]:
    """An edit: the first match of ``pattern`` replaced (there must be one)."""

    def edit(text: str) -> str:
        changed, count = re.subn(pattern, replacement, text, count=1, flags=re.MULTILINE)
        assert count == 1, pattern
        return changed

    return edit


def _edited(tmp_path: Path, file: str, edit: Callable[[str], str]) -> Path:
    """An image of a copy of the protos with ``file`` edited."""
    copy = tmp_path / "proto"
    shutil.copytree(PROTO / "gamerules", copy / "gamerules")
    path = copy / "gamerules" / "v1" / file
    path.write_text(edit(path.read_text()))
    return _image(copy, tmp_path / "image.binpb")


def _changed(tmp_path: Path, file: str, edit: Callable[[str], str]) -> subprocess.CompletedProcess[str]:
    """`buf breaking` on a copy of the protos with ``file`` edited."""
    return _breaking(_edited(tmp_path, file, edit))


def _json_name(match: re.Match[str]) -> str:
    """A json_name option on the field, beside any options it has."""
    options = ' [json_name = "randomSeed"'
    return match.group(1) + (options + "];" if match.group(2) == ";" else options + ", ")


def _annotated(text: str) -> str:
    """A new message whose field has a google.api.field_behavior annotation (importing it once)."""
    imported = 'import "google/api/field_behavior.proto";'
    if imported not in text:
        text = _sub(r'^(import "google/api/annotations.proto";)', "\\1\n" + imported)(text)
    return text + "\nmessage Annotated {\n  string name = 1 [(google.api.field_behavior) = REQUIRED];\n}\n"


@pytest.fixture(autouse=True)
def _buf() -> None:
    if not BUF.exists():
        pytest.skip("buf is not installed in this environment (make install pins it)")


def test_there_is_a_released_contract():
    assert RELEASES, "proto/releases/ holds no released contract image"
    assert RELEASES[-1].stat().st_size > 1000


def test_the_protos_are_compatible_with_the_last_release(tmp_path):
    done = _breaking(_image(PROTO, tmp_path / "image.binpb"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_released_rest_route_is_kept(tmp_path):
    image = _image(PROTO, tmp_path / "image.binpb")
    assert len(_routes(RELEASES[-1])) >= 9
    assert _lost_routes(image) == []


def test_a_changed_rest_route_is_caught(tmp_path):
    image = _edited(tmp_path, "gamerules.proto", _sub(r'post: "/v1/\{game=games/\*\}:newGame"', 'post: "/v1/new"'))
    assert _breaking(image).returncode == 0  # buf does not see it: this test's check does
    assert _lost_routes(image) == ["gamerules.v1.GameRules.NewGame"]


@pytest.mark.parametrize(
    ("file", "edit", "complaint"),
    [
        ("kalah.proto", _sub(r"^(\s*)repeated int32 pits = 1\b[^;]*;", r"\1reserved 1;"), 'field "1" with name "pits"'),
        ("kalah.proto", _sub(r"\bpits = 1\b", "pit_seeds = 1"), 'changed name from "pits" to "pit_seeds"'),
        ("kalah.proto", _sub(r"^(\s*)repeated int32 pits = 1\b", r"\1repeated int64 pits = 1"), "changed type"),
        ("gamerules.proto", _sub(r"^(\s*)string seed = 3\b", r"\1string seed = 13"), 'field "3" with name "seed"'),
        ("gamerules.proto", _sub(r"^(\s*string seed = 3)( \[|;)", _json_name), 'option "json_name"'),
        ("gamerules.proto", _sub(r"^(\s*)rpc BestMove\(", r"\1rpc FindBestMove("), 'RPC "BestMove"'),
        ("reversi.proto", _sub(r'go_package = "[^"]*"', 'go_package = "other/v1;otherv1"'), 'option "go_package"'),
    ],
    ids=["delete-field", "rename-field", "change-type", "renumber-field", "json-name", "rename-rpc", "go-package"],
)
def test_a_breaking_change_fails_the_gate(tmp_path, file, edit, complaint):
    done = _changed(tmp_path, file, edit)
    assert done.returncode != 0
    assert complaint in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("file", "edit"),
    [
        ("kalah.proto", _sub(r"^(message KalahPosition \{)", r"\1\n  int32 captures_so_far = 90;")),
        (
            "gamerules.proto",
            _sub(r"^(service GameRules \{)", r"\1\n  rpc Ping(ListGamesRequest) returns (ListGamesResponse);"),
        ),
        ("gamerules.proto", _annotated),
    ],
    ids=["add-field", "add-rpc", "field-behavior"],
)
def test_an_additive_change_passes_the_gate(tmp_path, file, edit):
    done = _changed(tmp_path, file, edit)
    assert done.returncode == 0, done.stdout + done.stderr
