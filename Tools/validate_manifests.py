#!/usr/bin/env python3
"""Validates deploy/k8s: every resource of the base, and the base with each overlay's JSON 6902
patches applied, against the Kubernetes schemas bundled with kubernetes-validate (offline).
Exits non-zero on the first broken manifest. Usage: validate_manifests.py [deploy/k8s]"""
import copy
import pathlib
import sys

import kubernetes_validate
import yaml

VERSION = "1.30.0"


def load_kustomization(directory):
    return yaml.safe_load((directory / "kustomization.yaml").read_text())


def resources(directory):
    """The documents a kustomization lists (recursing into bases), with their file names."""
    docs = []
    for entry in load_kustomization(directory).get("resources", []):
        path = (directory / entry).resolve()
        if path.is_dir():
            docs += resources(path)
        else:
            docs += [(path.name, doc) for doc in yaml.safe_load_all(path.read_text()) if doc]
    return docs


def apply_patch(doc, operations):
    for op in operations:
        keys = [k.replace("~1", "/").replace("~0", "~") for k in op["path"].strip("/").split("/")]
        node = doc
        for key in keys[:-1]:
            node = node[int(key)] if isinstance(node, list) else node[key]
        last = keys[-1]
        if op["op"] in ("replace", "add"):
            if op["op"] == "replace" and last not in node:
                raise ValueError(f"patch replaces {op['path']}, which does not exist")
            node[last] = op["value"]
        elif op["op"] == "remove":
            del node[last]
        else:
            raise ValueError(f"unsupported patch op {op['op']}")


def overlay(directory):
    docs = [(name, copy.deepcopy(doc)) for name, doc in resources(directory)]
    for patch in load_kustomization(directory).get("patches", []):
        target = patch["target"]
        operations = yaml.safe_load((directory / patch["path"]).read_text())
        matched = [doc for _, doc in docs
                   if doc["kind"] == target["kind"] and doc["metadata"]["name"] == target["name"]]
        if not matched:
            raise ValueError(f"{directory.name}: patch {patch['path']} matches no resource")
        for doc in matched:
            apply_patch(doc, operations)
    return docs


def validate(label, docs):
    names = set()
    for name, doc in docs:
        kubernetes_validate.validate(doc, VERSION, strict=True)
        key = (doc["kind"], doc["metadata"]["name"])
        if key in names:
            raise ValueError(f"{label}: {key} defined twice")
        names.add(key)
    print(f"{label}: {len(docs)} resources valid (Kubernetes {VERSION})")


def main(root):
    root = pathlib.Path(root)
    try:
        validate("base", resources(root / "base"))
        for directory in sorted((root / "overlays").iterdir()):
            validate(f"overlay {directory.name}", overlay(directory))
    except Exception as error:  # a broken manifest: say which and fail
        print(f"invalid manifest: {str(error).splitlines()[0]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "deploy/k8s"))
