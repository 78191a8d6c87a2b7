#!/usr/bin/env python3
"""Validates deploy/k8s: every resource of the base, and the base with each overlay's JSON 6902
patches applied, against the Kubernetes schemas bundled with kubernetes-validate (offline), and
what the schemas cannot see: each sharded StatefulSet runs as many pods as its *_SHARDS setting and
the gateway's PUSHBUS_SHARDS map say; every Ingress route names a Service port that exists; with
--executables, every executable named runs in a Deployment or StatefulSet of the base.
Exits non-zero on the first broken manifest.
Usage: validate_manifests.py [--executables gateway,api,...] [deploy/k8s]"""
import argparse
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


def of_kind(docs, *kinds):
    return [doc for _, doc in docs if doc["kind"] in kinds]


def containers(workload):
    return workload["spec"]["template"]["spec"]["containers"]


def check_shards(label, docs):
    """A sharded StatefulSet's pod count, its pods' --shard-count (the ConfigMap key their
    PUSHBUS_SHARD_COUNT reads) and the gateway's --shards map (PUSHBUS_SHARDS) must agree, or
    the gateway routes devices to shards that do not exist, or never to some that do."""
    settings = {doc["metadata"]["name"]: doc.get("data", {}) for doc in of_kind(docs, "ConfigMap")}
    shard_map = {}
    for pair in settings.get("pushbus-settings", {}).get("PUSHBUS_SHARDS", "").split(","):
        if pair.strip():
            service, count = pair.split("=")
            shard_map[service.strip()] = int(count)
    sharded = set()
    for workload in of_kind(docs, "StatefulSet"):
        for container in containers(workload):
            for variable in container.get("env", []):
                if variable["name"] != "PUSHBUS_SHARD_COUNT":
                    continue
                ref = variable["valueFrom"]["configMapKeyRef"]
                service = container["command"][0]
                sharded.add(service)
                count = int(settings[ref["name"]][ref["key"]])
                replicas = workload["spec"].get("replicas", 1)
                mapped = shard_map.get(service, 1)
                if not count == replicas == mapped:
                    raise ValueError(f"{label}: StatefulSet {workload['metadata']['name']} runs {replicas} pods, "
                                     f"its shard count ({ref['key']}) is {count} and the gateway's PUSHBUS_SHARDS "
                                     f"says {service}={mapped}: they must agree")
    for service in shard_map:
        if service not in sharded:
            raise ValueError(f"{label}: PUSHBUS_SHARDS names {service}, which no sharded StatefulSet runs")


def check_routes(label, docs):
    """Every Ingress backend is a Service of these manifests, on a port that Service has."""
    services = {doc["metadata"]["name"]: doc for doc in of_kind(docs, "Service")}
    for ingress in of_kind(docs, "Ingress"):
        for rule in ingress["spec"].get("rules", []):
            for path in rule.get("http", {}).get("paths", []):
                backend = path["backend"]["service"]
                service = services.get(backend["name"])
                if service is None:
                    raise ValueError(f"{label}: Ingress {ingress['metadata']['name']} sends {path['path']} to "
                                     f"Service {backend['name']}, which does not exist")
                port = backend["port"]
                if not any(port.get("name") == p.get("name") or port.get("number") == p["port"]
                           for p in service["spec"]["ports"]):
                    raise ValueError(f"{label}: Ingress {ingress['metadata']['name']} sends {path['path']} to "
                                     f"port {port} of Service {backend['name']}, which has no such port")


def check_executables(docs, executables):
    """Each executable the launcher starts runs as the command of some Deployment or StatefulSet."""
    run = {container["command"][0] for workload in of_kind(docs, "Deployment", "StatefulSet")
           for container in containers(workload) if container.get("command")}
    missing = [name for name in executables if name not in run]
    for name in missing:
        print(f"missing Kubernetes manifest: no Deployment or StatefulSet in deploy/k8s/base runs {name}",
              file=sys.stderr)
    if missing:
        raise ValueError(f"no manifest for {', '.join(missing)}")
    print(f"base: a workload for each of {len(executables)} executables ({', '.join(executables)})")


def validate(label, docs):
    names = set()
    for name, doc in docs:
        kubernetes_validate.validate(doc, VERSION, strict=True)
        key = (doc["kind"], doc["metadata"]["name"])
        if key in names:
            raise ValueError(f"{label}: {key} defined twice")
        names.add(key)
    check_shards(label, docs)
    check_routes(label, docs)
    print(f"{label}: {len(docs)} resources valid (Kubernetes {VERSION})")


def main(arguments):
    parser = argparse.ArgumentParser(description="Validates deploy/k8s (base and overlays).")
    parser.add_argument("root", nargs="?", default="deploy/k8s")
    parser.add_argument("--executables", default="",
                        help="comma-separated executables that must each run in a workload of the base")
    options = parser.parse_args(arguments)
    root = pathlib.Path(options.root)
    try:
        base = resources(root / "base")
        validate("base", base)
        for directory in sorted((root / "overlays").iterdir()):
            validate(f"overlay {directory.name}", overlay(directory))
        executables = [name for name in options.executables.split(",") if name]
        if executables:
            check_executables(base, executables)
    except Exception as error:  # a broken manifest: say which and fail
        print(f"invalid manifest: {str(error).splitlines()[0]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
