"""Both samples validate against the project's own XSDs (bundletui/spec/xsd).

The schemas belong to the spec layer; if they are not in the tree yet the test
is skipped rather than failed, since the samples are checked structurally anyway.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from tests.samples.helpers import NAIVE_BAYES, OOZIE_WF, SAMPLES

XSD_DIR = SAMPLES.parent / "bundletui" / "spec" / "xsd"


@pytest.mark.parametrize(
    ("xsd", "workflow"),
    [
        ("dag-1.0.xsd", NAIVE_BAYES / "workflow.xml"),
        ("workflow-1.0.xsd", OOZIE_WF / "workflow.xml"),
    ],
)
def test_sample_is_schema_valid(xsd: str, workflow: Path) -> None:
    schema_path = XSD_DIR / xsd
    if not schema_path.is_file():
        pytest.skip(f"{schema_path} not present yet")
    schema = etree.XMLSchema(etree.parse(str(schema_path)))
    doc = etree.parse(str(workflow))
    assert schema.validate(doc), str(schema.error_log)
