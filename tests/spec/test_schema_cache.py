"""The on-disk cache of built XSD validators: used when it is the user's own, ignored otherwise."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.spec import xmlsafe

DAG = "uri:bundletui:dag:1.0"
BAD = b'<dag-app xmlns="uri:bundletui:dag:1.0" name="x"><nope/></dag-app>'


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("BUNDLETUI_NO_SCHEMA_CACHE", raising=False)
    return tmp_path / "bundletui"


def test_built_once_then_loaded_and_still_validating(cache: Path) -> None:
    spec = xmlsafe.schema_for(DAG)
    assert spec is not None
    first = xmlsafe._cached_schema(spec)
    files = list(cache.glob("schema-*.pickle"))
    assert len(files) == 1 and oct(files[0].stat().st_mode & 0o777) == "0o600"
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    again = xmlsafe._cached_schema(spec)
    assert again is not first  # loaded from disk, not the same object
    root = xmlsafe.parse_xml(BAD, "bad.xml")
    xmlsafe._SCHEMAS[DAG] = again
    try:
        with pytest.raises(SpecError) as err:
            xmlsafe.validate(root, "bad.xml")
        assert err.value.code == "E0701"
    finally:
        xmlsafe._SCHEMAS.pop(DAG, None)


def test_a_cache_others_can_write_is_not_trusted(cache: Path) -> None:
    spec = xmlsafe.schema_for(DAG)
    assert spec is not None
    xmlsafe._cached_schema(spec)
    (path,) = cache.glob("schema-*.pickle")
    path.write_bytes(pickle.dumps("not a schema"))
    os.chmod(path, 0o666)  # world-writable: anybody could have put code in it
    schema = xmlsafe._cached_schema(spec)
    assert hasattr(schema, "validate")  # rebuilt, the planted file was not used
    os.chmod(cache, 0o777)
    assert xmlsafe._cache_dir() is None  # a shared directory is not used at all
