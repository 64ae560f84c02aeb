#!/usr/bin/env python3
"""Renders every template/context pair of cases_*.py with Python jinja2 configured exactly as
transformers compiles chat templates, and writes tests/golden/template/jinja_goldens.json.

Environment: ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with the
loopcontrols extension and a {% generation %} block, transformers' tojson filter
(json.dumps(x, ensure_ascii=False, indent, separators, sort_keys)), raise_exception, strftime_now
on a fixed clock (FIXED_TIME, UTC), dict and namespace globals as transformers defines them.

Each golden is {"name", "template", "context", "output"} or {"name", "template", "context",
"error": "<jinja2 exception type>"}; the C++ test requires the same output byte for byte, or an
error (the message text may differ).

Run: /work/venv-dev/bin/python scripts/golden/template/make_goldens.py
"""
import datetime
import importlib
import json
import os
import sys

import jinja2
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OUT = os.path.join(ROOT, "tests", "golden", "template", "jinja_goldens.json")
FIXED_TIME = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
FIXED_TIME_UNIX = int(FIXED_TIME.timestamp())
CASE_MODULES = ["cases_core", "cases_filters", "cases_families", "cases_errors"]


class GenerationTracker(Extension):
    """transformers' AssistantTracker parse: {% generation %}...{% endgeneration %}."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

    @jinja2.pass_eval_context
    def _generation_support(self, context, caller):
        return caller()


def make_env():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return FIXED_TIME.strftime(format)

    class TemplateDict:
        def __call__(self, *args, **kwargs):
            return dict(*args, **kwargs)

    class TemplateNamespace(jinja2.utils.Namespace):
        def __init__(*args, **kwargs):
            self, args = args[0], args[1:]
            attrs = dict(*args, **kwargs)
            for name in attrs:
                TemplateNamespace._check_name(name)
            jinja2.utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name, value):
            TemplateNamespace._check_name(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

        @staticmethod
        def _check_name(name):
            if isinstance(name, str) and name.startswith("_"):
                raise jinja2.exceptions.SecurityError("underscore-prefixed namespace attribute")

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationTracker, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["dict"] = TemplateDict()
    env.globals["namespace"] = TemplateNamespace
    return env


def render(env, template, context):
    try:
        return {"output": env.from_string(template).render(**context)}
    except Exception as e:  # noqa: BLE001 - any failure is an expected "error" outcome
        return {"error": type(e).__name__}


def main():
    sys.path.insert(0, HERE)
    env = make_env()
    goldens, names = [], set()
    for mod_name in CASE_MODULES:
        for name, template, context in importlib.import_module(mod_name).CASES:
            if name in names:
                raise SystemExit(f"duplicate case name {name}")
            names.add(name)
            entry = {"name": name, "template": template, "context": context}
            entry.update(render(env, template, context))
            goldens.append(entry)
    doc = {
        "manifest": {
            "generator": "scripts/golden/template/make_goldens.py",
            "jinja2": jinja2.__version__,
            "python": sys.version.split()[0],
            "fixed_time_unix": FIXED_TIME_UNIX,
            "num_cases": len(goldens),
            "num_errors": sum(1 for g in goldens if "error" in g),
        },
        "cases": goldens,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    sys.path.insert(0, os.path.join(HERE, ".."))
    from check_manifest import update_manifest
    update_manifest(os.path.join(ROOT, "tests", "golden"), "template", {
        "generator": "scripts/golden/template/make_goldens.py", "fixed_time_unix": FIXED_TIME_UNIX,
        "versions": {"jinja2": jinja2.__version__, "python": sys.version.split()[0]}})
    print(f"wrote {len(goldens)} cases ({doc['manifest']['num_errors']} errors) to {OUT}")


if __name__ == "__main__":
    main()
