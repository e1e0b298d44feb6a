"""devcluster conformance through an independent client: Debian's python3-kubernetes.

Run by python-client.test.ts against a devcluster with nodenet's CRDs and a short watch history
(KUBECONFIG set). Each check prints `PASS <name>` or `FAIL <name>: <why>`; the exit code is the
number of failures. Nothing here works around devcluster: a difference from kube-apiserver is a
devcluster bug.
"""
import json
import sys
import traceback

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

config.load_kube_config()
core = client.CoreV1Api()
custom = client.CustomObjectsApi()
G, V = "network.nodenet.io", "v1alpha1"
results = []


def check(fn):
    try:
        fn()
        results.append(("PASS", fn.__name__, ""))
    except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the suite
        why = f"{type(e).__name__}: {e}".replace("\n", " ")[:600]
        results.append(("FAIL", fn.__name__, why))
        traceback.print_exc(file=sys.stderr)


def table(name, table_id, labels=None):
    return {
        "apiVersion": f"{G}/{V}",
        "kind": "RoutingTable",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"tableId": table_id},
    }


def expect_status(status, fn):
    try:
        fn()
    except ApiException as e:
        assert e.status == status, f"expected {status}, got {e.status}: {e.body}"
        return json.loads(e.body)
    raise AssertionError(f"expected HTTP {status}, the call succeeded")


@check
def custom_resource_crud():
    created = custom.create_cluster_custom_object(G, V, "routingtables", table("py-crud", 5001))
    assert created["metadata"]["resourceVersion"], created
    got = custom.get_cluster_custom_object(G, V, "routingtables", "py-crud")
    assert got["spec"] == {"tableId": 5001}, got
    patched = custom.patch_cluster_custom_object(
        G, V, "routingtables", "py-crud", {"metadata": {"labels": {"team": "a"}}}
    )
    assert patched["metadata"]["labels"] == {"team": "a"}, patched
    patched["spec"]["tableId"] = 5002
    replaced = custom.replace_cluster_custom_object(G, V, "routingtables", "py-crud", patched)
    assert replaced["spec"]["tableId"] == 5002 and replaced["metadata"]["generation"] == 2, replaced
    custom.delete_cluster_custom_object(G, V, "routingtables", "py-crud")
    expect_status(404, lambda: custom.get_cluster_custom_object(G, V, "routingtables", "py-crud"))


@check
def core_kinds_crud():
    ns = client.V1Namespace(metadata=client.V1ObjectMeta(name="py-ns"))
    core.create_namespace(ns)
    cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-cm", labels={"app": "py"}), data={"k": "v"})
    core.create_namespaced_config_map("py-ns", cm)
    read = core.read_namespaced_config_map("py-cm", "py-ns")
    assert read.data == {"k": "v"}, read
    listed = core.list_namespaced_config_map("py-ns", label_selector="app=py")
    assert [i.metadata.name for i in listed.items] == ["py-cm"], listed
    core.patch_namespaced_config_map("py-cm", "py-ns", {"data": {"k": "w"}})
    assert core.read_namespaced_config_map("py-cm", "py-ns").data == {"k": "w"}
    node = client.V1Node(metadata=client.V1ObjectMeta(name="py-node", labels={"rack": "r1"}))
    core.create_node(node)
    assert core.read_node("py-node").metadata.labels == {"rack": "r1"}
    core.delete_namespaced_config_map("py-cm", "py-ns")
    core.delete_node("py-node")


@check
def status_subresource():
    l2 = {
        "apiVersion": f"{G}/{V}",
        "kind": "Layer2NetworkConfiguration",
        "metadata": {"name": "py-status"},
        "spec": {"id": 42, "vni": 4242},
    }
    custom.create_cluster_custom_object(G, V, "layer2networkconfigurations", l2)
    cond = {"type": "Accepted", "status": "True", "reason": "Valid", "message": "ok", "lastTransitionTime": "2026-01-01T00:00:00Z"}
    out = custom.patch_cluster_custom_object_status(
        G, V, "layer2networkconfigurations", "py-status", {"status": {"conditions": [cond]}, "spec": {"vni": 1}}
    )
    assert out["status"]["conditions"][0]["reason"] == "Valid", out
    assert out["spec"]["vni"] == 4242, f"status write changed spec: {out['spec']}"
    # A write to the main resource ignores status.
    out["status"] = {}
    again = custom.replace_cluster_custom_object(G, V, "layer2networkconfigurations", "py-status", out)
    assert again["status"]["conditions"][0]["reason"] == "Valid", again


@check
def conflict_on_stale_update():
    first = custom.create_cluster_custom_object(G, V, "routingtables", table("py-409", 5003))
    stale = json.loads(json.dumps(first))
    first["spec"]["tableId"] = 5004
    custom.replace_cluster_custom_object(G, V, "routingtables", "py-409", first)
    stale["spec"]["tableId"] = 5005
    body = expect_status(409, lambda: custom.replace_cluster_custom_object(G, V, "routingtables", "py-409", stale))
    assert body["reason"] == "Conflict", body


@check
def invalid_names_the_field():
    bad = {
        "apiVersion": f"{G}/{V}",
        "kind": "Layer2NetworkConfiguration",
        "metadata": {"name": "py-bad"},
        "spec": {"id": 7, "vni": 0},
    }
    body = expect_status(422, lambda: custom.create_cluster_custom_object(G, V, "layer2networkconfigurations", bad))
    assert body["reason"] == "Invalid", body
    assert any(c["field"] == "spec.vni" for c in body["details"]["causes"]), body


@check
def label_selectors():
    custom.create_cluster_custom_object(G, V, "routingtables", table("py-sel-a", 5010, {"tier": "a"}))
    custom.create_cluster_custom_object(G, V, "routingtables", table("py-sel-b", 5011, {"tier": "b"}))
    a = custom.list_cluster_custom_object(G, V, "routingtables", label_selector="tier=a")
    assert [i["metadata"]["name"] for i in a["items"]] == ["py-sel-a"], a
    notb = custom.list_cluster_custom_object(G, V, "routingtables", label_selector="tier,tier!=b")
    assert [i["metadata"]["name"] for i in notb["items"]] == ["py-sel-a"], notb
    inset = custom.list_cluster_custom_object(G, V, "routingtables", label_selector="tier in (a,b)")
    assert sorted(i["metadata"]["name"] for i in inset["items"]) == ["py-sel-a", "py-sel-b"], inset


@check
def list_then_watch_in_order():
    listed = custom.list_cluster_custom_object(G, V, "routingtables")
    rv = listed["metadata"]["resourceVersion"]
    custom.create_cluster_custom_object(G, V, "routingtables", table("py-watch", 5020))
    custom.patch_cluster_custom_object(G, V, "routingtables", "py-watch", {"spec": {"tableId": 5021}})
    custom.delete_cluster_custom_object(G, V, "routingtables", "py-watch")
    seen = []
    w = watch.Watch()
    for ev in w.stream(
        custom.list_cluster_custom_object, G, V, "routingtables", resource_version=rv, timeout_seconds=10
    ):
        if ev["object"]["metadata"]["name"] != "py-watch":
            continue
        seen.append((ev["type"], ev["object"]["spec"]["tableId"]))
        if ev["type"] == "DELETED":
            w.stop()
    assert seen == [("ADDED", 5020), ("MODIFIED", 5021), ("DELETED", 5021)], seen


@check
def gone_then_relist():
    start = custom.list_cluster_custom_object(G, V, "routingtables")["metadata"]["resourceVersion"]
    # More writes than the server keeps in its watch history (the test starts it with 20).
    for i in range(30):
        custom.patch_cluster_custom_object(G, V, "routingtables", "py-sel-a", {"metadata": {"labels": {"n": str(i)}}})
    w = watch.Watch()
    try:
        for _ in w.stream(custom.list_cluster_custom_object, G, V, "routingtables", resource_version=start, timeout_seconds=5):
            pass
        raise AssertionError("a watch from a compacted resourceVersion was not refused")
    except ApiException as e:
        assert e.status == 410, f"expected 410, got {e.status}: {e.reason}"
    relisted = custom.list_cluster_custom_object(G, V, "routingtables", label_selector="n=29")
    assert [i["metadata"]["name"] for i in relisted["items"]] == ["py-sel-a"], relisted


for status, name, why in results:
    print(f"{status} {name}" + (f": {why}" if why else ""), flush=True)
sys.exit(sum(1 for r in results if r[0] == "FAIL"))
