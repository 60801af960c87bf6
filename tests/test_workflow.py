"""The GitHub Pages workflow, checked offline: it cannot run here.

It must validate against the GitHub workflow schema that check-jsonschema ships, and publish what the
README says: triggers, permissions, one deployment at a time, and the README's build-only install and
build command (with ``--base-url`` from actions/configure-pages instead of ``--serve``). Nothing is
deployed unless a test job ran the suite without the browser tier.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_setup import readme_commands

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


def check_jsonschema(path):
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(path)], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def workflow():
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    # YAML 1.1 (PyYAML) reads the key `on` as the boolean True.
    data["on"] = data.pop(True, data.get("on"))
    return data


def steps_using(job, action):
    return [step for step in job["steps"] if step.get("uses", "").split("@")[0] == action]


def test_the_workflow_validates_against_the_github_schema():
    result = check_jsonschema(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_catches_a_broken_workflow(tmp_path):
    broken = tmp_path / "pages.yml"
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace("pages: write", "pages: publish"), encoding="utf-8")
    assert check_jsonschema(broken).returncode != 0


def test_triggers_permissions_and_concurrency(workflow):
    assert workflow["on"] == {"push": {"branches": ["main"]}, "workflow_dispatch": None}
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert workflow["concurrency"]["group"]
    assert workflow["concurrency"].get("cancel-in-progress") is False


def test_the_build_job_installs_and_builds_with_the_readmes_commands(workflow):
    build_command, _ = readme_commands()
    install, build = build_command.split(" && ")
    job = workflow["jobs"]["build"]
    uses = [step["uses"].split("@")[0] for step in job["steps"] if "uses" in step]
    assert uses == ["actions/checkout", "actions/setup-python", "actions/configure-pages",
                    "actions/upload-pages-artifact"]
    [pages] = steps_using(job, "actions/configure-pages")
    runs = [step["run"].strip() for step in job["steps"] if "run" in step]
    assert build.endswith(" --serve")
    base_url = f'--base-url "${{{{ steps.{pages["id"]}.outputs.base_url }}}}"'
    assert runs == [install, build.replace("--serve", base_url + " --one-file-editions")]
    names = [step.get("uses", step.get("run", "")) for step in job["steps"]]
    assert names.index(pages["uses"]) < names.index(runs[1]), "configure-pages must run before the build"
    [upload] = steps_using(job, "actions/upload-pages-artifact")
    assert upload["with"]["path"] == "site"


def needs(job):
    return [job["needs"]] if isinstance(job.get("needs"), str) else list(job.get("needs", []))


def test_the_test_job_runs_every_tier_but_the_browsers(workflow):
    build_command, _ = readme_commands()
    install = build_command.split(" && ")[0]
    job = workflow["jobs"]["test"]
    uses = [step["uses"].split("@")[0] for step in job["steps"] if "uses" in step]
    assert uses == ["actions/checkout", "actions/setup-python"]
    runs = [step["run"].strip() for step in job["steps"] if "run" in step]
    assert runs[0] == install
    assert '.venv/bin/python -m pip install -e ".[test]"' in runs
    assert runs[-1] == '.venv/bin/python -m pytest -m "not browser"'
    assert needs(job) == [], "the tests run first"
    assert job["permissions"] == {"contents": "read"}, "the tests need no right to publish"


def test_the_deploy_job(workflow):
    job = workflow["jobs"]["deploy"]
    assert sorted(needs(job)) == ["build", "test"], "deploy only what was built, after the tests passed"
    [deploy] = steps_using(job, "actions/deploy-pages")
    assert job["environment"] == {"name": "github-pages", "url": f"${{{{ steps.{deploy['id']}.outputs.page_url }}}}"}


def test_build_py_accepts_base_url_and_writes_site_by_default(monkeypatch):
    for name in ("MPLBACKEND", "MPLCONFIGDIR"):  # build.py sets these on import; restore them afterwards
        monkeypatch.setenv(name, os.environ.get(name, ""))
    spec = importlib.util.spec_from_file_location("build_script", ROOT / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    args = build.parse_args(["--base-url", "https://user.github.io/calibration-tutorial"])
    assert args.base_url == "https://user.github.io/calibration-tutorial"
    assert build.parse_args([]).base_url is None
    assert Path(build.parse_args([]).out) == ROOT / "site"  # what the workflow uploads


def test_one_file_editions_are_an_option_of_a_site_build(monkeypatch, capsys):
    for name in ("MPLBACKEND", "MPLCONFIGDIR"):
        monkeypatch.setenv(name, os.environ.get(name, ""))
    spec = importlib.util.spec_from_file_location("build_script", ROOT / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert build.parse_args(["--one-file-editions"]).one_file_editions
    assert not build.parse_args([]).one_file_editions  # a local build writes and links none
    with pytest.raises(SystemExit) as stopped:
        build.parse_args(["--one-file-editions", "--single-file", "x.html"])
    assert stopped.value.code == 2 and "--one-file-editions" in capsys.readouterr().err
