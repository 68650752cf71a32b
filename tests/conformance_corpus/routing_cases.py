"""Conformance cases: task routes, path/area/rule/profile routing, invalid routing input,
manifest topology and the protocol block (registered in cases.CASES on import)."""

from cases import (CHECK_ROUTING, INBOX, INIT_ROUTES, NOT_APPROVED, READ_IMPL, ROUTING_ERROR, STRICT_IMPL, case,
                   decl, module)

INIT = {"routes": INIT_ROUTES}
ALWAYS_AND_IMPL = ["brief.md", "constraints.md", "decisions.md", "do-not-use.md"]
TOOLS_AREA = {"routes": INIT_ROUTES, "areas": [decl("areas/tools.md", "path-or-explicit", paths=["tools/**"])]}
TOOLS_FILE = {"areas/tools.md": module("Area: Tools")}
EXPLAIN = ["read", "--task", "implementation", "--explain", "--names-only"]

# -- task routes -----------------------------------------------------------------------------
case("init-implementation", "a fresh memory read for implementation loads the always and task modules, "
     "COMPLETE and CLEAR, and lists an absent optional module as missing-optional",
     ["default_init_read_implementation"], READ_IMPL, manifest=INIT, files=INBOX,
     fields={"routing_completeness": "COMPLETE", "conflict_status": "CLEAR"}, loaded=ALWAYS_AND_IMPL,
     dispositions={"preferences.md": "missing-optional"}, out=["Missing optional:", "- preferences.md"])
case("alias-architecture", "the task alias 'architecture' resolves to the planning route",
     ["alias_architecture_routes_to_planning"], ["read", "--task", "architecture", "--names-only"],
     manifest={"routes": {**INIT_ROUTES, "planning": ["decisions.md", "do-not-use.md"]}}, files=INBOX,
     fields={"canonical_task": "planning"}, loaded=ALWAYS_AND_IMPL,
     out=["Task: architecture", "Canonical task: planning"], not_out=["- inbox.md"])
case("custom-route-wins", "a project's own route list replaces the default modules of that task",
     ["custom_task_route_is_authoritative"], READ_IMPL,
     manifest={"routes": {**INIT_ROUTES, "implementation": ["inbox.md", "?preferences.md"]}}, files=INBOX,
     loaded=["brief.md", "constraints.md", "inbox.md"], dispositions={"preferences.md": "missing-optional"},
     not_out=["- do-not-use.md"])
case("default-task-general", "without --task the read is the general task: always-load modules only",
     ["default_task_is_general_always_load_only"], ["read", "--names-only"], manifest=INIT, files=INBOX,
     fields={"canonical_task": "general"}, loaded=["brief.md", "constraints.md"],
     out=["Task: default", "Canonical task: general"])
case("maintenance-alias", "the alias 'compact' resolves to the maintenance route, optional change log missing",
     ["maintenance_route"], ["read", "--task", "compact", "--names-only"], manifest=INIT, files=INBOX,
     fields={"canonical_task": "maintenance"}, loaded=["brief.md", "constraints.md", "inbox.md", "do-not-use.md"],
     dispositions={"changelog.md": "missing-optional"})

# -- path areas ------------------------------------------------------------------------------
case("area-no-scope-strict", "a path area with no path given leaves routing INCOMPLETE; strict refuses (exit 1)",
     ["path_area_no_scope_strict_incomplete"], STRICT_IMPL, manifest=TOOLS_AREA, files=TOOLS_FILE, exit=1,
     out=["Routing completeness: INCOMPLETE", NOT_APPROVED], fields={"routing_completeness": "INCOMPLETE"})
case("area-no-scope-explain", "--explain names MC-SKIP-SCOPE-MISSING for the area nobody scoped",
     ["path_area_no_scope_explain"], EXPLAIN, manifest=TOOLS_AREA, files=TOOLS_FILE,
     fields={"routing_completeness": "INCOMPLETE"}, reasons={"areas/tools.md": "MC-SKIP-SCOPE-MISSING"},
     out=["- areas/tools.md\n  Disposition: skipped\n  Reason: MC-SKIP-SCOPE-MISSING", "Routing completeness: INCOMPLETE"])
case("area-planned-path", "a path not yet on disk still routes its area (missing-on-disk), strict is COMPLETE",
     ["path_area_planned_path_strict_complete"],
     ["read", "--task", "implementation", "--strict-routing", "--explain", "--path", "tools/later.py", "--names-only"],
     manifest=TOOLS_AREA, files=TOOLS_FILE, fields={"routing_completeness": "COMPLETE"},
     dispositions={"areas/tools.md": "loaded"}, reasons={"areas/tools.md": "MC-ROUTE-PATH"},
     out=["- tools/later.py (missing-on-disk)", "Reason: MC-ROUTE-PATH (tools/later.py <- tools/**)"])
case("backslash-path", "a path written with a backslash is read as the forward-slash path",
     ["backslash_path_normalized"], ["read", "--task", "implementation", "--path", "tools\\fresh.py", "--names-only"],
     manifest=TOOLS_AREA, files=TOOLS_FILE, fields={"routing_completeness": "COMPLETE"},
     dispositions={"areas/tools.md": "loaded"}, out=["- tools/fresh.py (missing-on-disk)"])
PATHS_ONCE = [*EXPLAIN, "--path", "NOTES.md", "--path", "tools/run.py"]
case("paths-sorted-once", "paths are listed sorted and matched per module with the glob that matched",
     ["path_order_and_duplicates_identical"], PATHS_ONCE, manifest=TOOLS_AREA, files=TOOLS_FILE,
     out=["- NOTES.md (missing-on-disk)", "- tools/run.py (missing-on-disk)",
          "Reason: MC-ROUTE-PATH (tools/run.py <- tools/**)"])
case("paths-reordered-duplicated", "the same paths in another order and repeated give the identical pack",
     ["path_order_and_duplicates_identical"],
     [*EXPLAIN, "--path", "tools/run.py", "--path", "NOTES.md", "--path", "tools/run.py"],
     manifest=TOOLS_AREA, files=TOOLS_FILE, same_as="paths-sorted-once")
case("path-no-match", "a path that matches no area skips it with MC-SKIP-NO-PATH-MATCH and stays COMPLETE",
     ["path_supplied_but_no_match"], [*EXPLAIN, "--path", "docs/guide.txt"], manifest=TOOLS_AREA, files=TOOLS_FILE,
     fields={"routing_completeness": "COMPLETE"}, dispositions={"areas/tools.md": "skipped"},
     reasons={"areas/tools.md": "MC-SKIP-NO-PATH-MATCH"})
case("explicit-area", "--area opens a path-or-explicit area without any path",
     ["explicit_area_without_path"], [*EXPLAIN, "--area", "tools"], manifest=TOOLS_AREA, files=TOOLS_FILE,
     fields={"routing_completeness": "COMPLETE"}, dispositions={"areas/tools.md": "loaded"},
     reasons={"areas/tools.md": "MC-ROUTE-EXPLICIT-AREA"}, out=["Matching input: area:tools", "- area:tools"])
case("explicit-area-path-only", "--area cannot open an area whose activation is path only",
     ["explicit_area_cannot_open_path_only_area"], [*EXPLAIN, "--area", "tools"],
     manifest={"routes": INIT_ROUTES, "areas": [decl("areas/tools.md", "path", paths=["tools/**"])]},
     files=TOOLS_FILE, fields={"routing_completeness": "COMPLETE"}, dispositions={"areas/tools.md": "skipped"},
     reasons={"areas/tools.md": "MC-SKIP-SCOPE-MISSING"})

# -- task rules and profiles -----------------------------------------------------------------
LABELS = {"routes": INIT_ROUTES, "rules": [decl("rules/labels.md", "task", tasks=["artifact"])]}
LABELS_FILE = {"rules/labels.md": module("Rule: Labels")}
case("task-rule-other-task", "a task rule for another task is skipped with MC-SKIP-TASK-MISMATCH",
     ["task_rule_mismatch"], EXPLAIN, manifest=LABELS, files=LABELS_FILE,
     dispositions={"rules/labels.md": "skipped"}, reasons={"rules/labels.md": "MC-SKIP-TASK-MISMATCH"})
case("task-rule-its-task", "a task rule loads for its task, reached through the alias 'output'",
     ["task_rule_match"], ["read", "--task", "output", "--explain", "--names-only"], manifest=LABELS,
     files=LABELS_FILE, fields={"canonical_task": "artifact"}, dispositions={"rules/labels.md": "loaded"},
     reasons={"rules/labels.md": "MC-ROUTE-TASK"}, out=["Matching input: task:artifact"])
case("task-rule-ignores-request", "--rule cannot open a rule whose activation is task only",
     ["task_only_rule_ignores_explicit_request"], [*EXPLAIN, "--rule", "labels"], manifest=LABELS,
     files=LABELS_FILE, dispositions={"rules/labels.md": "skipped"},
     reasons={"rules/labels.md": "MC-SKIP-TASK-MISMATCH"})
PROFILES = {"routes": INIT_ROUTES, "profiles": [decl("profiles/night.md", "explicit-only"),
                                                 decl("profiles/travel.md", "explicit-only")]}
SWAPPED = {"routes": INIT_ROUTES, "profiles": PROFILES["profiles"][::-1]}
PROFILE_FILES = {"profiles/night.md": module("Profile: Night"), "profiles/travel.md": module("Profile: Travel")}
TWO_PROFILES = [*EXPLAIN, "--profile", "night", "--profile", "travel", "--no-local"]
case("profiles-requested", "explicit-only profiles load when requested, after the routed modules",
     ["explicit_profiles_loaded"], TWO_PROFILES, manifest=PROFILES, files=PROFILE_FILES,
     loaded=[*ALWAYS_AND_IMPL, "profiles/night.md", "profiles/travel.md"],
     reasons={"profiles/night.md": "MC-ROUTE-EXPLICIT-PROFILE", "profiles/travel.md": "MC-ROUTE-EXPLICIT-PROFILE"})
case("profiles-declared-swapped", "the order the manifest declares profiles in does not change the pack",
     ["explicit_profiles_loaded_declaration_order_swapped"], TWO_PROFILES, manifest=SWAPPED, files=PROFILE_FILES,
     same_as="profiles-requested")
case("profiles-not-requested", "explicit-only profiles nobody asked for are skipped with MC-SKIP-NOT-REQUESTED",
     ["profile_not_requested"], EXPLAIN, manifest=PROFILES, files=PROFILE_FILES,
     reasons={"profiles/night.md": "MC-SKIP-NOT-REQUESTED", "profiles/travel.md": "MC-SKIP-NOT-REQUESTED"})
case("profile-not-enabled", "a requested profile the manifest does not enable is missing-optional, still COMPLETE",
     ["explicit_profile_not_enabled"], [*EXPLAIN, "--profile", "picnic"], manifest=INIT,
     fields={"routing_completeness": "COMPLETE"}, dispositions={"profiles/picnic.md": "missing-optional"},
     reasons={"profiles/picnic.md": "MC-MISSING-OPTIONAL"},
     out=["Matching input: profile:picnic", "Explicit profile 'picnic' is not enabled in the manifest."])

# -- invalid routing input and manifest declarations ------------------------------------------
for flag in ("--profile", "--area"):
    case(f"escaping-name{flag}", f"{flag} with a name that climbs out of the memory folder is INVALID (exit 2)",
         [f"invalid_explicit_name{flag}"], ["read", "--explain", flag, "../tools"], manifest=INIT, exit=2,
         fields={"routing_completeness": "INVALID"}, out=["MC-ROUTE-INVALID"],
         err=["Error: Routing input or manifest is invalid"])
case("route-outside-memory", "a route naming a file outside the memory folder makes routing and conflicts INVALID",
     ["unsafe_route_path_invalid"], EXPLAIN, manifest={"routes": {**INIT_ROUTES, "always": ["../elsewhere.md",
                                                                                             "constraints.md"]}},
     exit=2, fields={"routing_completeness": "INVALID", "conflict_status": "INVALID"},
     dispositions={"manifest.md": "invalid"}, out=["Routing completeness: INVALID", "Disposition: invalid",
                                                    "MC-ROUTE-INVALID"], err=["Error:"])
case("unknown-declaration-key", "an optional module declaration with a key the protocol does not know is INVALID",
     ["exclusive_group_is_unknown_key"], ["read", "--task", "implementation", "--path", "tools/a.py", "--names-only"],
     manifest=TOOLS_AREA, files=TOOLS_FILE, edits=[("  - paths: `tools/**`\n", "  - paths: `tools/**`\n"
                                                    "  - exclusive-group: gadgets\n")],
     exit=2, fields={"routing_completeness": "INVALID"}, any_out=["unknown optional module key 'exclusive-group'"])
case("declaration-key-twice", "a declaration that gives one key twice is a routing error",
     ["optional_duplicate_scalar_key"], CHECK_ROUTING, manifest=LABELS, files=LABELS_FILE,
     edits=[("  - activation: task\n", "  - activation: task\n  - activation: task-or-explicit\n")],
     exit=1, out=[ROUTING_ERROR, "duplicate optional module key"])
case("module-declared-twice", "one module declared twice is a routing error",
     ["optional_duplicate_module"], CHECK_ROUTING, manifest={"rules": [
         decl("rules/labels.md", "task", tasks=["artifact"]), decl("rules/labels.md", "explicit-only")]},
     files=LABELS_FILE, exit=1, out=[ROUTING_ERROR, "duplicate optional module declaration"])

# -- manifest topology -------------------------------------------------------------------------
SUBSECTIONS = "### Enabled profiles\n"
case("subsection-twice", "an optional module subsection given twice is a routing error",
     ["routing_topology_duplicate_subsection"], CHECK_ROUTING,
     edits=[(SUBSECTIONS, "### Enabled rules\n- None enabled.\n\n" + SUBSECTIONS)], exit=1,
     out=["duplicate optional module subsection"])
case("sentinel-and-declaration", "'None enabled.' beside a declaration contradicts itself",
     ["routing_topology_sentinel_plus_declaration"], CHECK_ROUTING, manifest=LABELS, files=LABELS_FILE,
     edits=[("### Enabled rules\n", "### Enabled rules\n- None enabled.\n")], exit=1,
     out=["contradictory optional module sentinel"])
case("unknown-route-heading", "an H3 under Load by task that names no known task is a routing error",
     ["routing_topology_unknown_task_h3"], CHECK_ROUTING,
     edits=[("### Memory maintenance\n", "### Tea tasting\nLoad:\n- decisions.md\n\n### Memory maintenance\n")],
     exit=1, out=["unknown H3 route heading"])
case("declaration-outside-subsection", "a declaration directly under the index heading is a routing error",
     ["routing_topology_declaration_outside_subsection"], CHECK_ROUTING, files=LABELS_FILE,
     edits=[("## Optional module index\n", "## Optional module index\n\n- `rules/labels.md`\n"
             "  - activation: explicit-only\n")], exit=1, out=["outside a canonical subsection"])
case("no-load-by-task", "a manifest without a Load by task section is a routing error",
     ["routing_topology_no_load_by_task"], CHECK_ROUTING, edits=[("## Load by task\n", "## Routes per task\n")],
     exit=1, out=["expected exactly one 'Load by task' section, found 0"])
case("two-load-by-task", "two Load by task sections are a routing error",
     ["routing_topology_two_load_by_task"], CHECK_ROUTING,
     edits=[("## Optional module index\n", "## Load by task\n\n## Optional module index\n")], exit=1,
     out=["expected exactly one 'Load by task' section, found 2"])
case("route-heading-elsewhere", "a canonical route heading under another H2 is a routing error",
     ["routing_topology_canonical_h3_outside_parent"], CHECK_ROUTING,
     edits=[("## Optional module index\n", "## Extra routes\n\n### Preferences\nLoad:\n- decisions.md\n\n"
             "## Optional module index\n")], exit=1, out=["canonical heading appears outside"])
case("index-twice", "a second Optional module index refuses a strict read",
     ["duplicate_optional_module_index"], STRICT_IMPL,
     edits=[("## Explicit only\n", "## Optional module index\n\n### Enabled rules\n- `rules/sneaky.md`\n"
             "  - activation: explicit-only\n\n## Explicit only\n")], exit="nonzero",
     any_out=["at most one Optional module index"])
