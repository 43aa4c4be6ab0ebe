"""Gate 9: the GitHub Actions workflow tests on every push to main, then publishes site/ to GitHub Pages."""


import yaml
from tests.conftest import ROOT



def test_publish_workflow_tests_builds_and_deploys_on_push_to_main():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "publish.yml").read_text())
    on = wf.get(True) or wf.get("on")  # YAML 1.1 reads the key `on` as True
    assert on["push"]["branches"] == ["main"]
    assert {"pages": "write", "id-token": "write"} .items() <= wf["permissions"].items()
    build = wf["jobs"]["build"]["steps"]
    runs = [s.get("run", "") for s in build]
    uses = [s.get("uses", "") for s in build]
    test_at = next(i for i, r in enumerate(runs) if "make test" in r)
    site_at = next(i for i, r in enumerate(runs) if "make site" in r)
    upload_at = next(i for i, u in enumerate(uses) if u.startswith("actions/upload-pages-artifact"))
    assert test_at < site_at < upload_at, "publish only what was tested and built"
    assert any("chromium" in r for r in runs) and any("npm ci" in r for r in runs)
    assert build[upload_at]["with"]["path"] == "site"
    deploy = wf["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert any(s.get("uses", "").startswith("actions/deploy-pages") for s in deploy["steps"])


def test_package_lock_pins_lighthouse_for_ci():
    import json

    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert "lighthouse" in lock["packages"][""]["devDependencies"]
    assert lock["packages"]["node_modules/lighthouse"]["version"]
