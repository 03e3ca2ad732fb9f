"""Azure provider under Pulumi mocks: resource types and counts, and the properties that matter,
checked by value for hand-built plans (tests/factories.py), plus every example workload.

The default sample plan is one Standard_NC4as_T4_v3 on-demand in eastus (hand-picked figures,
not produced by the optimizer), idle shutdown after 30 min below 5 % GPU, a $1000 budget
alerting at 50/80/100 % to ml-oncall@example.com, catalog as_of 2026-10-01.
"""

from __future__ import annotations

import base64
import datetime as dt
import glob
import importlib
import inspect
import subprocess
import sys
from collections import Counter
from functools import cache
from typing import Any

import pytest

from infra_gen.errors import RenderError
from infra_gen.plan import Plan, PurchaseMix, ScheduleSettings
from infra_gen.providers import azure_budget, azure_scaleset, azure_values
from infra_gen.providers.azure import AzureProvider, uses_single_vm
from infra_gen.providers.base import RenderOptions, get_provider
from infra_gen.render import RenderedResource, render_plan
from infra_gen.startup import render_startup_script
from tests.factories import sample_plan
from tests.providers.azure_cases import (
    OPTS,
    SSH_KEY,
    SUB,
    TAGS,
    guardrails,
    plans,
)

T = "azure-native:"
RG, VNET, SUBNET, NSG = (T + "resources:ResourceGroup", T + "network:VirtualNetwork",
                         T + "network:Subnet", T + "network:NetworkSecurityGroup")
NIC, VM, VMSS, EXT = (T + "network:NetworkInterface", T + "compute:VirtualMachine",
                      T + "compute:VirtualMachineScaleSet", T + "compute:VirtualMachineExtension")
CRG, CR = T + "compute:CapacityReservationGroup", T + "compute:CapacityReservation"
ALERT, GROUP, AUTOSCALE = (T + "monitor:MetricAlert", T + "monitor:ActionGroup",
                           T + "monitor:AutoscaleSetting")
SHUTDOWN, BUDGET = T + "devtestlab:GlobalSchedule", T + "consumption:Budget"
ROLE, GRANT = T + "authorization:RoleDefinition", T + "authorization:RoleAssignment"

# Every plan with guardrails on and its own network gets these, whatever the capacity shape.
COMMON = {"infra-gen:index:GpuWorkload": 1, RG: 1, VNET: 1, SUBNET: 1, NSG: 1, GROUP: 1,
          ALERT: 1, BUDGET: 2, ROLE: 1, GRANT: 1}

@cache
def _render(case: str) -> tuple[RenderedResource, ...]:
    return tuple(render_plan(plans()[case], OPTS))


def _one(case: str, typ: str) -> dict[str, Any]:
    found = [r for r in _render(case) if r.type == typ]
    assert len(found) == 1, f"{case}: expected one {typ}, got {len(found)}"
    return found[0].inputs


def _all(case: str, typ: str) -> list[dict[str, Any]]:
    return [r.inputs for r in _render(case) if r.type == typ]


def _counts(case: str) -> Counter[str]:
    return Counter(r.type for r in _render(case))


def test_single_on_demand_is_one_vm_with_nic_and_driver() -> None:
    assert _counts("single") == Counter({**COMMON, NIC: 1, VM: 1, EXT: 1})
    vm = _one("single", VM)
    assert vm["vmName"] == "petsnap-serving-vm"
    assert vm["hardwareProfile"] == {"vmSize": "Standard_NC4as_T4_v3"}
    assert vm["priority"] == "Regular" and "evictionPolicy" not in vm
    assert vm["storageProfile"]["imageReference"] == {
        "publisher": "microsoft-dsvm", "offer": "ubuntu-hpc", "sku": "2204", "version": "latest"}
    os_disk = vm["storageProfile"]["osDisk"]
    assert (os_disk["diskSizeGB"], os_disk["deleteOption"], os_disk["createOption"]) == (
        200, "Delete", "FromImage")
    assert os_disk["managedDisk"] == {"storageAccountType": "Premium_LRS"}  # "as": premium
    assert vm["securityProfile"] == {"encryptionAtHost": True}
    assert vm["diagnosticsProfile"] == {"bootDiagnostics": {"enabled": True}}
    assert vm["identity"] == {"type": "SystemAssigned"}
    nic = vm["networkProfile"]["networkInterfaces"][0]
    assert nic == {"id": "petsnap-serving-nic-id", "primary": True, "deleteOption": "Delete"}
    assert _one("single", NIC)["networkSecurityGroup"] == {"id": "petsnap-serving-nsg-id"}
    # (the SDK adds its subnet policy defaults next to the id)
    assert _one("single", NIC)["ipConfigurations"][0]["subnet"]["id"] == (
        "petsnap-serving-subnet-id")
    ext = _one("single", EXT)
    assert (ext["publisher"], ext["type"], ext["typeHandlerVersion"], ext["vmName"]) == (
        "Microsoft.HpcCompute", "NvidiaGpuDriverLinux", "1.6", "petsnap-serving-vm")


def test_ssh_key_only_and_startup_script_as_custom_and_user_data() -> None:
    vm = _one("single", VM)
    linux = vm["osProfile"]["linuxConfiguration"]
    assert linux["disablePasswordAuthentication"] is True
    assert linux["ssh"]["publicKeys"] == [
        {"path": "/home/azureuser/.ssh/authorized_keys", "keyData": SSH_KEY}]
    assert "adminPassword" not in vm["osProfile"]
    script = render_startup_script(plans()["single"], "azure")
    assert base64.b64decode(vm["osProfile"]["customData"]).decode() == script
    assert vm["userData"] == vm["osProfile"]["customData"]


def test_missing_ssh_key_is_a_clear_render_error() -> None:
    with pytest.raises(RenderError, match="SSH public key is required"):
        render_plan(sample_plan("azure"), RenderOptions())
    with pytest.raises(RenderError, match="ssh-rsa"):
        render_plan(sample_plan("azure"), RenderOptions(ssh_public_key="AAAAB3Nza only-base64"))


def test_spot_mix_is_flexible_scale_set_with_priority_mix() -> None:
    assert _counts("spot-mix") == Counter({**COMMON, VMSS: 1, AUTOSCALE: 1})
    vmss = _one("spot-mix", VMSS)
    assert vmss["orchestrationMode"] == "Flexible"
    assert vmss["platformFaultDomainCount"] == 1
    assert vmss["sku"] == {"name": "Standard_NC4as_T4_v3", "capacity": 4}  # 1 on-demand + 3 spot
    assert vmss["priorityMixPolicy"] == {"baseRegularPriorityCount": 1,
                                         "regularPriorityPercentageAboveBase": 0}
    profile = vmss["virtualMachineProfile"]
    assert profile["priority"] == "Spot"
    assert profile["evictionPolicy"] == "Delete"  # inference: nothing on disk worth keeping
    assert profile["billingProfile"] == {"maxPrice": -1}
    assert profile["networkProfile"]["networkApiVersion"] == "2020-11-01"
    assert "capacityReservation" not in profile
    ext = profile["extensionProfile"]["extensions"][0]
    assert (ext["publisher"], ext["type"]) == ("Microsoft.HpcCompute", "NvidiaGpuDriverLinux")
    assert profile["osProfile"]["linuxConfiguration"]["disablePasswordAuthentication"] is True


def test_reserved_baseline_is_a_capacity_reservation_used_by_the_scale_set() -> None:
    assert _counts("reserved-spot") == Counter({**COMMON, VMSS: 1, CRG: 1, CR: 1,
                                                AUTOSCALE: 1})
    cr = _one("reserved-spot", CR)
    assert cr["sku"] == {"name": "Standard_NC24ads_A100_v4", "capacity": 2}
    assert cr["capacityReservationGroupName"] == "petsnap-train-crg"  # mock echoes the name
    vmss = _one("reserved-spot", VMSS)
    assert vmss["sku"]["capacity"] == 6  # 2 reserved + 1 on-demand + 3 spot
    assert vmss["priorityMixPolicy"]["baseRegularPriorityCount"] == 3  # reserved + on-demand
    profile = vmss["virtualMachineProfile"]
    assert profile["capacityReservation"] == {
        "capacityReservationGroup": {"id": "petsnap-train-crg-id"}}
    # Training with local checkpoints every 30 min: keep the disk on eviction.
    assert profile["evictionPolicy"] == "Deallocate"
    gaps = AzureProvider().unsupported(plans()["reserved-spot"])
    assert "reservation-purchase" in gaps and "capacity-reservation-spot" in gaps


def test_single_reserved_vm_uses_its_reservation() -> None:
    plan = sample_plan("azure", purchase=PurchaseMix(reserved=1, reserved_term="3y"))
    assert uses_single_vm(plan)
    res = render_plan(plan, OPTS)
    vm = next(r.inputs for r in res if r.type == VM)
    assert vm["capacityReservation"] == {
        "capacityReservationGroup": {"id": "petsnap-serving-crg-id"}}
    assert next(r.inputs for r in res if r.type == CR)["sku"]["capacity"] == 1


def test_office_hours_scale_set_gets_weekly_autoscale_profiles() -> None:
    assert _counts("office-vmss")[AUTOSCALE] == 1
    setting = _one("office-vmss", AUTOSCALE)
    assert setting["targetResourceUri"] == "petsnap-serving-vmss-id"
    assert setting["enabled"] is True
    weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
    berlin = "W. Europe Standard Time"
    # 09:00 + 10 h = 19:00; 2 instances (1 on-demand + 1 spot) while running, 0 otherwise.
    assert setting["profiles"] == [
        {"name": "run-0900", "rules": [],
         "capacity": {"minimum": "2", "maximum": "2", "default": "2"},
         "recurrence": {"frequency": "Week", "schedule": {
             "days": weekdays, "hours": [9], "minutes": [0], "timeZone": berlin}}},
        {"name": "stop-1900", "rules": [],
         "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
         "recurrence": {"frequency": "Week", "schedule": {
             "days": weekdays, "hours": [19], "minutes": [0], "timeZone": berlin}}},
    ]
    assert setting["notifications"][0]["email"]["customEmails"] == ["ml-oncall@example.com"]
    assert _counts("office-vmss")[SHUTDOWN] == 0


def test_office_hours_vm_gets_devtest_shutdown_named_for_the_vm() -> None:
    assert _counts("office-vm")[SHUTDOWN] == 1 and _counts("office-vm")[AUTOSCALE] == 0
    sched = _one("office-vm", SHUTDOWN)
    assert sched["name"] == "shutdown-computevm-petsnap-serving-vm"
    assert sched["taskType"] == "ComputeVmShutdownTask"
    assert sched["status"] == "Enabled"
    assert sched["dailyRecurrence"] == {"time": "1900"}  # 9 + 10 h
    assert sched["timeZoneId"] == "Eastern Standard Time"  # America/New_York
    assert sched["targetResourceId"] == "petsnap-serving-vm-id"
    assert sched["notificationSettings"] == {"status": "Enabled", "timeInMinutes": 30,
                                             "emailRecipient": "ml-oncall@example.com"}


def test_always_on_plans_get_no_schedule_but_spot_sets_hold_capacity() -> None:
    for case in ("single", "spot-mix", "reserved-spot"):
        assert _counts(case)[SHUTDOWN] == 0
    assert _counts("single")[AUTOSCALE] == 0
    # 24x7 with spot: one fixed profile, so autoscale re-creates evicted (deleted) machines.
    hold = _one("spot-mix", AUTOSCALE)
    assert hold["profiles"] == [{"name": "hold-capacity", "rules": [], "capacity": {
        "minimum": "4", "maximum": "4", "default": "4"}}]
    assert hold["targetResourceUri"] == "petsnap-serving-vmss-id"
    # Once autoscale owns the count, Pulumi must not reset it.
    assert azure_scaleset.ignored_properties(plans()["spot-mix"]) == ["sku.capacity"]
    assert azure_scaleset.ignored_properties(plans()["office-vmss"]) == ["sku.capacity"]
    regular_only = sample_plan("azure", purchase=PurchaseMix(on_demand=2))
    assert azure_scaleset.ignored_properties(regular_only) == []
    assert Counter(r.type for r in render_plan(regular_only, OPTS))[AUTOSCALE] == 0


def test_idle_alert_uses_cpu_proxy_over_idle_window_to_action_group() -> None:
    alert = _one("single", ALERT)
    assert alert["scopes"] == ["petsnap-serving-vm-id"]
    assert (alert["windowSize"], alert["evaluationFrequency"]) == ("PT30M", "PT5M")
    crit = alert["criteria"]["allOf"][0]
    assert alert["criteria"]["odataType"] == (
        "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria")
    assert (crit["metricName"], crit["metricNamespace"]) == (
        "Percentage CPU", "Microsoft.Compute/virtualMachines")
    assert (crit["operator"], crit["threshold"], crit["timeAggregation"]) == (
        "LessThan", 5.0, "Maximum")
    assert alert["actions"] == [{"actionGroupId": "petsnap-serving-alerts-id"}]
    group = _one("single", GROUP)
    assert group["emailReceivers"] == [{"name": "email-0",
                                        "emailAddress": "ml-oncall@example.com",
                                        "useCommonAlertSchema": True}]
    vmss_crit = _one("spot-mix", ALERT)["criteria"]["allOf"][0]
    assert vmss_crit["metricNamespace"] == "Microsoft.Compute/virtualMachineScaleSets"


def test_budgets_split_actual_and_forecast_at_each_alert_percent() -> None:
    budgets = sorted(_all("single", BUDGET), key=lambda b: b["budgetName"])
    assert [b["budgetName"] for b in budgets] == [
        "petsnap-serving-monthly-actual", "petsnap-serving-monthly-forecasted"]
    scope = f"/subscriptions/{SUB}/resourceGroups/rg-petsnap-serving"
    for budget, kind in zip(budgets, ("Actual", "Forecasted"), strict=True):
        assert budget["scope"] == scope
        assert (budget["amount"], budget["category"], budget["timeGrain"]) == (
            1000.0, "Cost", "Monthly")
        assert budget["timePeriod"] == {"startDate": "2026-10-01T00:00:00Z"}  # as_of month
        assert budget["filter"] == {"tags": {"name": "workload", "operator": "In",
                                             "values": ["petsnap-serving"]}}
        notes = budget["notifications"]
        assert sorted(notes) == sorted(f"{kind.lower()}-{p}" for p in (50, 80, 100))
        assert sorted(n["threshold"] for n in notes.values()) == [50.0, 80.0, 100.0]
        for n in notes.values():
            assert (n["thresholdType"], n["operator"], n["enabled"]) == (
                kind, "GreaterThan", True)
            assert n["contactEmails"] == ["ml-oncall@example.com"]


def test_two_percents_fit_one_budget_and_no_emails_notify_owners() -> None:
    assert azure_budget.notification_batches([80, 100]) == [
        ("", [("Actual", 80), ("Actual", 100), ("Forecasted", 80), ("Forecasted", 100)])]
    six = azure_budget.notification_batches([10, 20, 30, 40, 50, 60])
    assert [(s, len(b)) for s, b in six] == [("-actual", 5), ("-actual-2", 1),
                                            ("-forecasted", 5), ("-forecasted-2", 1)]
    plan = sample_plan("azure", guardrails=guardrails(alert_percent=[80, 100], emails=[]))
    res = render_plan(plan, OPTS)
    (budget,) = [r.inputs for r in res if r.type == BUDGET]
    assert len(budget["notifications"]) == 4
    assert all(n["contactRoles"] == ["Owner"] for n in budget["notifications"].values())
    assert not [r for r in res if r.type == GROUP]


def test_guardrails_switched_off_create_no_alert_budget_group_or_role() -> None:
    counts = _counts("off")
    for typ in (ALERT, BUDGET, GROUP, ROLE, GRANT, SHUTDOWN):
        assert counts[typ] == 0, typ
    assert counts[VMSS] == 1
    # Capacity upkeep for the spot machine is not a cost guardrail: it stays.
    assert _one("off", AUTOSCALE)["profiles"][0]["name"] == "hold-capacity"


def test_watchdog_may_only_read_and_deallocate_vms_in_the_group() -> None:
    role = _one("single", ROLE)
    scope = f"/subscriptions/{SUB}/resourceGroups/rg-petsnap-serving"
    assert role["permissions"] == [{"actions": [
        "Microsoft.Compute/virtualMachines/read",
        "Microsoft.Compute/virtualMachines/deallocate/action"]}]
    assert role["assignableScopes"] == [scope] and role["roleType"] == "CustomRole"
    grant = _one("single", GRANT)
    assert grant["scope"] == scope and grant["principalType"] == "ServicePrincipal"
    assert grant["roleDefinitionId"] == "petsnap-serving-deallocate-role-id"


@pytest.mark.parametrize("case", ["single", "reserved-spot", "off"])
def test_nsg_allows_no_inbound_from_the_internet(case: str) -> None:
    rules = _one(case, NSG)["securityRules"]
    assert {"name": "deny-internet-inbound", "access": "Deny", "direction": "Inbound",
            "sourceAddressPrefix": "Internet"}.items() <= rules[0].items()
    for rule in rules:
        if rule["direction"] == "Inbound" and rule["access"] == "Allow":
            assert rule.get("sourceAddressPrefix") not in {"*", "Internet", "0.0.0.0/0", "Any"}
    assert _one(case, SUBNET)["networkSecurityGroup"] == {"id": "petsnap-%s-nsg-id" % (
        "train" if case == "reserved-spot" else "serving")}


def _taggable(token: str) -> bool:
    """Whether the SDK resource class behind ``token`` takes ``tags`` (read from the SDK)."""
    _, module, cls = token.split(":")
    resource = getattr(importlib.import_module(f"pulumi_azure_native.{module}"), cls)
    return "tags" in inspect.signature(resource._internal_init).parameters


@pytest.mark.parametrize("case", ["single", "reserved-spot", "office-vm", "office-vmss"])
def test_every_taggable_resource_carries_the_cost_tags(case: str) -> None:
    expected = {**TAGS, "workload": plans()[case].workload}
    azure = [r for r in _render(case) if r.type.startswith(T)]
    tagged = [r for r in azure if _taggable(r.type)]
    assert {r.type for r in azure} - {r.type for r in tagged} <= {SUBNET, BUDGET, ROLE, GRANT}
    for r in tagged:
        assert r.inputs.get("tags") == expected, r.name


def test_emitted_enum_values_are_documented() -> None:
    allowed = azure_values.ALLOWED
    for case in ("single", "spot-mix", "reserved-spot", "office-vmss", "office-vm"):
        for r in _render(case):
            i = r.inputs
            profile = i.get("virtualMachineProfile", i)
            if r.type in (VM, VMSS):
                assert profile["priority"] in allowed["priority"]
                assert profile.get("evictionPolicy", "Delete") in allowed["eviction_policy"]
            if r.type == BUDGET:
                assert i["timeGrain"] in allowed["budget_time_grain"]
                for n in i["notifications"].values():
                    assert n["thresholdType"] in allowed["budget_threshold_type"]
                    assert n["operator"] in allowed["budget_operator"]
            if r.type == AUTOSCALE:
                for p in i["profiles"]:
                    if "recurrence" not in p:  # the fixed hold-capacity profile
                        continue
                    assert p["recurrence"]["frequency"] in allowed["recurrence_frequency"]
                    assert set(p["recurrence"]["schedule"]["days"]) <= allowed["weekday"]
    with pytest.raises(RenderError, match="expected one of Deallocate, Delete"):
        azure_values.check("eviction_policy", "Stop")


def test_unmapped_time_zone_is_a_clear_error() -> None:
    plan = sample_plan("azure", guardrails=guardrails(schedule=ScheduleSettings(
        hours_per_day=8, timezone="Asia/Kathmandu")))
    with pytest.raises(RenderError, match="no mapping for 'Asia/Kathmandu'"):
        render_plan(plan, OPTS)


def test_h100_scale_set_relies_on_image_driver_and_keeps_encryption_at_host() -> None:
    profile = _one("h100-spot", VMSS)["virtualMachineProfile"]
    assert "extensionProfile" not in profile  # NvidiaGpuDriverLinux does not list H100 sizes
    assert profile["securityProfile"] == {"encryptionAtHost": True}
    assert _one("h100-spot", VMSS)["priorityMixPolicy"] == {
        "baseRegularPriorityCount": 0, "regularPriorityPercentageAboveBase": 0}
    assert "gpu-driver-extension" in AzureProvider().unsupported(plans()["h100-spot"])


def test_named_resource_group_subscription_and_image_options() -> None:
    opts = RenderOptions(ssh_public_key=SSH_KEY, azure_resource_group="shared-gpu",
                         azure_subscription_id="sub-123",
                         image="Canonical:0001-com-ubuntu-server-jammy:22_04-lts-gen2:latest")
    res = render_plan(sample_plan("azure"), opts)
    assert not [r for r in res if r.type == RG]
    assert {r.inputs["resourceGroupName"] for r in res if "resourceGroupName" in r.inputs} == {
        "shared-gpu"}
    budget = next(r.inputs for r in res if r.type == BUDGET)
    assert budget["scope"] == "/subscriptions/sub-123/resourceGroups/shared-gpu"
    vm = next(r.inputs for r in res if r.type == VM)
    assert vm["storageProfile"]["imageReference"]["offer"] == "0001-com-ubuntu-server-jammy"
    with pytest.raises(RenderError, match="publisher:offer:sku:version"):
        render_plan(sample_plan("azure"), RenderOptions(ssh_public_key=SSH_KEY, image="x:y"))


def test_named_subnet_replaces_vnet_and_must_be_an_arm_id() -> None:
    subnet = ("/subscriptions/s/resourceGroups/net/providers/Microsoft.Network/"
              "virtualNetworks/hub/subnets/gpu")
    plan = sample_plan("azure").model_copy(update={"subnets": [subnet]})
    res = render_plan(plan, OPTS)
    assert not [r for r in res if r.type in (VNET, SUBNET)]
    nic = next(r.inputs for r in res if r.type == NIC)
    assert nic["ipConfigurations"][0]["subnet"]["id"] == subnet
    bad = sample_plan("azure").model_copy(update={"subnets": ["subnet-0abc"]})
    with pytest.raises(RenderError, match="subnet resource id"):
        render_plan(bad, OPTS)


def test_component_outputs_and_registry() -> None:
    assert isinstance(get_provider("azure"), AzureProvider)
    component = next(r for r in _render("single") if r.type == "infra-gen:index:GpuWorkload")
    assert component.name == "petsnap-serving"
    children = [r for r in _render("single") if r.type.startswith(T)]
    assert all(r.name.startswith("petsnap-serving-") for r in children)


def test_importing_the_provider_does_not_import_the_sdk() -> None:
    code = ("import sys, infra_gen.providers.azure; "
            "print(any(m.startswith('pulumi_azure_native') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def _exampleplans() -> list[Plan]:
    optimizer = pytest.importorskip("infra_gen.optimizer")
    from infra_gen.catalog import load_catalog
    from infra_gen.loading import load_workload

    catalog = load_catalog()
    return [optimizer.plan_workload(load_workload(path), catalog, cloud="azure",
                                    today=dt.date(2026, 11, 1))
            for path in sorted(glob.glob("stacks/*.yaml"))
            if not path.startswith("stacks/Pulumi.")]


def test_every_example_workload_renders_the_shape_its_plan_asks_for() -> None:
    plans = _exampleplans()
    assert len(plans) == 7
    for plan in plans:
        res = render_plan(plan, OPTS)
        mix = plan.recommendation.purchase
        counts = Counter(r.type for r in res)
        assert counts[VM if uses_single_vm(plan) else VMSS] == 1, plan.workload
        assert counts[CR] == (1 if mix.reserved else 0), plan.workload
        if not uses_single_vm(plan):
            vmss = next(r.inputs for r in res if r.type == VMSS)
            assert vmss["sku"] == {"name": plan.recommendation.instance_type,
                                   "capacity": mix.total}, plan.workload
        if mix.reserved:
            cr = next(r.inputs for r in res if r.type == CR)
            assert cr["sku"]["capacity"] == mix.reserved, plan.workload
        assert counts[BUDGET] >= 1 and counts[ALERT] == 1, plan.workload


@pytest.mark.parametrize("case", ["single", "spot-mix", "reserved-spot", "office-vmss",
                                  "office-vm", "h100-spot"])
def test_policy_pack_finds_no_mandatory_violation(case: str) -> None:
    """The rules `infra-gen check` and the CrossGuard pack apply (tags, no open inbound,
    encryption, budget, stop paths) accept every guardrailed Azure shape."""
    check = pytest.importorskip("infra_gen.policy.check")
    from infra_gen.policy.config import PolicyConfig
    from infra_gen.policy.model import Resource

    resources = [Resource(r.type, r.name, r.inputs, r.urn) for r in _render(case)]
    found = check.check_rendered(resources, None, PolicyConfig(), f"{case}.yaml")
    assert [v for v in found if v.level == "mandatory"] == []


def test_render_option_pins_the_budget_start_month() -> None:
    """The program passes stack config infra-gen:azure-budget-start (default: this month)."""
    res = render_plan(sample_plan("azure"), OPTS.model_copy(
        update={"azure_budget_start": "2026-12-01"}))
    starts = {r.inputs["timePeriod"]["startDate"] for r in res if r.type == BUDGET}
    assert starts == {"2026-12-01T00:00:00Z"}
