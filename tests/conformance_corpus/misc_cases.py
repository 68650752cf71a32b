"""Conformance cases: protocol block, fences and comments, missing modules, budgets, legacy
units, merge review and the local overlay (registered in cases.CASES on import)."""

from cases import (CHECK_ROUTING, INBOX, INIT_ROUTES, NOT_APPROVED, ROUTING_ERROR, STRICT_IMPL, case, decl, doc,
                   entry)

INIT = {"routes": INIT_ROUTES}
HEADING = "## MemoryCustodian Protocol\n"
BEFORE_TRUST = "## Trust boundary\n"
# A second protocol block naming an older version: real when it is a section, inert inside a
# fence or a comment.
OLD_BLOCK = "## MEMORYCUSTODIAN PROTOCOL\n- protocol_version: 0.6\n\n"
STRICT_AND_CHECK = "a strict read refuses it (exit 2, INVALID) and check --routing reports MC-ROUTING-007"


def strict_and_check(cid: str, covers: str, scenarios, *, err=(), check_out=(), **project):
    """A strict read case and its check --routing twin for one broken protocol block."""
    case(cid, f"{covers}: {STRICT_AND_CHECK}", scenarios, STRICT_IMPL, exit=2,
         fields={"routing_completeness": "INVALID"}, err=list(err), **project)
    case(cid + "-check", f"{covers}: check --routing reports it as MC-ROUTING-007", scenarios, CHECK_ROUTING,
         exit=1, out=[ROUTING_ERROR, *check_out, *err], **project)


# -- the protocol block ---------------------------------------------------------------------------
case("protocol-block-twice", "a second protocol heading (any case) makes the explained strict read INVALID",
     ["duplicate_protocol_section_read"], ["read", "--task", "implementation", "--strict-routing", "--explain",
                                           "--names-only"],
     edits=[(BEFORE_TRUST, OLD_BLOCK + BEFORE_TRUST)], exit=2, fields={"routing_completeness": "INVALID"},
     out=["MC-ROUTE-INVALID"], err=["exactly one MemoryCustodian Protocol heading"])
case("protocol-block-twice-check", "check --routing reports a second protocol heading as MC-ROUTING-007",
     ["duplicate_protocol_section_check_routing"], CHECK_ROUTING, edits=[(BEFORE_TRUST, OLD_BLOCK + BEFORE_TRUST)],
     exit=1, out=[ROUTING_ERROR, "exactly one MemoryCustodian Protocol heading"])
strict_and_check("protocol-heading-h3", "the protocol heading written as H3 is no protocol block",
                 ["malformed_protocol_heading_h3"], edits=[(HEADING, "#" + HEADING)])
strict_and_check("protocol-heading-no-space", "'##' glued to the protocol heading is no heading",
                 ["malformed_protocol_heading_no_space"], edits=[(HEADING, "##MemoryCustodian Protocol\n")])
for version, scenario, message in (("0.7.0", "protocol_version_0.7.0", "canonical value 0.7"),
                                   ("00.7", "protocol_version_00.7", "canonical value 0.7")):
    strict_and_check(f"protocol-version-{version}", f"protocol_version {version} is not the canonical 0.7",
                     [scenario], manifest={"protocol": {"protocol_version": version, "routing_schema_version": None}},
                     err=[message])
strict_and_check("protocol-version-newer", "a protocol version newer than the analyzer's",
                 ["protocol_version_0.8"], manifest={"protocol": {"protocol_version": "0.8"}},
                 err=["newer than this CLI supports"])
for key, scenario, message in (
        ("protocol_version", "incomplete_protocol_contract_missing_protocol_version", "requires protocol_version"),
        ("routing_schema_version", "incomplete_protocol_contract_missing_routing_schema",
         "requires routing_schema_version: 1"),
        ("admission_policy", "incomplete_protocol_contract_missing_admission_policy",
         "requires admission_policy: evidence-required")):
    strict_and_check(f"protocol-without-{key}", f"a protocol block without {key}", [scenario],
                     manifest={"protocol": {key: None}}, err=[message])
NO_BLOCK = {"protocol": {key: None for key in ("protocol_version", "entry_schema_version", "subject_schema_version",
                                               "subject_registry", "routing_schema_version", "conflict_schema_version",
                                               "initialized_with", "last_migrated_with", "project_id",
                                               "admission_policy", "routing_policy", "conflict_policy")}}
NO_HEADING = [("## MemoryCustodian Protocol\n\n", "")]
case("legacy-manifest-routes", "a manifest from before the protocol block still routes: strict read COMPLETE",
     ["pre_metadata_legacy_manifest_still_routes"], STRICT_IMPL, manifest=NO_BLOCK, edits=NO_HEADING,
     fields={"routing_completeness": "COMPLETE"})
case("legacy-manifest-check", "check --routing of a manifest from before the protocol block has no MC-ROUTING-007",
     ["pre_metadata_legacy_manifest_still_routes"], CHECK_ROUTING, manifest=NO_BLOCK, edits=NO_HEADING,
     not_out=["MC-ROUTING-007"])
FENCED = "```text\n" + OLD_BLOCK + "```\n\n"
case("protocol-heading-fenced", "a protocol heading inside a fenced block is text: strict read COMPLETE",
     ["protocol_heading_in_fence_ignored"], STRICT_IMPL, edits=[(BEFORE_TRUST, FENCED + BEFORE_TRUST)],
     fields={"routing_completeness": "COMPLETE"})
case("protocol-heading-fenced-check", "check --routing ignores a fenced protocol heading",
     ["protocol_heading_in_fence_ignored"], CHECK_ROUTING, edits=[(BEFORE_TRUST, FENCED + BEFORE_TRUST)])
case("protocol-heading-commented", "a protocol heading inside an HTML comment is ignored",
     ["protocol_heading_in_html_comment_ignored"], STRICT_IMPL,
     edits=[(BEFORE_TRUST, "<!--\n" + OLD_BLOCK + "-->\n\n" + BEFORE_TRUST)],
     fields={"routing_completeness": "COMPLETE"})
case("protocol-heading-indented", "a protocol heading indented four spaces is code, so there is no protocol block",
     ["protocol_heading_indented_is_not_a_section"], STRICT_IMPL, edits=[(HEADING, "    " + HEADING)],
     exit="nonzero")
case("protocol-heading-indented-check", "check --routing fails when the only protocol heading is indented code",
     ["protocol_heading_indented_is_not_a_section"], CHECK_ROUTING, edits=[(HEADING, "    " + HEADING)],
     exit="nonzero")
case("backtick-fence-info-backtick", "a backtick fence whose info string holds a backtick is refused",
     ["backtick_fence_info_with_backtick_is_invalid"], STRICT_IMPL,
     edits=[(BEFORE_TRUST, "```sh`oops\n\n```\n\n" + BEFORE_TRUST)], exit="nonzero",
     any_out=["must not contain backticks"])
case("tilde-fence-info-backtick", "a tilde fence may carry a backtick in its info string; its content is text",
     ["tilde_fence_info_may_contain_backtick"], CHECK_ROUTING,
     edits=[(BEFORE_TRUST, "~~~`fine here\n" + OLD_BLOCK + "~~~\n\n" + BEFORE_TRUST)])
case("comment-opener-in-code-span", "'<!--' inside a code span opens no comment: the rest still routes",
     ["code_span_comment_opener_is_not_a_comment"], STRICT_IMPL,
     edits=[("## Always load\n", "Write `<!--` to start a comment.\n\n## Always load\n")],
     fields={"routing_completeness": "COMPLETE"})

# -- missing modules ------------------------------------------------------------------------------
EXPLAIN = ["read", "--task", "implementation", "--explain", "--names-only"]
case("required-module-missing", "a routed required module that is absent: MC-MISSING-REQUIRED, INCOMPLETE",
     ["missing_required_constraints"], EXPLAIN, manifest=INIT, remove=["constraints.md"],
     fields={"routing_completeness": "INCOMPLETE"}, dispositions={"constraints.md": "missing-required"},
     reasons={"constraints.md": "MC-MISSING-REQUIRED"},
     out=["required-module-missing", "- One or more required routed modules are missing."])
case("required-module-missing-strict", "the same read with --strict-routing is refused (exit 1)",
     ["missing_required_constraints"], [*EXPLAIN, "--strict-routing"], manifest=INIT, remove=["constraints.md"],
     exit=1, out=[NOT_APPROVED])
ONLY_ONCE = {"routes": {**INIT_ROUTES, "always": ["brief.md"],
                        "implementation": ["constraints.md", "decisions.md", "do-not-use.md"]}}
case("constraints-not-always", "constraints reached by only some routes: MC-ROUTING-004 warns per task, check OK",
     ["routing_safety_warning_without_root_constraints"], CHECK_ROUTING, manifest=ONLY_ONCE,
     out=["MemoryCustodian routing check: OK",
          "- MC-ROUTING-004 WARNING: Routing safety review required: artifact does not reach root constraints.md.",
          "- MC-ROUTING-004 WARNING: Routing safety review required: history does not reach root constraints.md."])
LABELS = {"routes": INIT_ROUTES, "rules": [decl("rules/labels.md", "task-or-explicit", tasks=["artifact"])]}
case("enabled-module-file-missing", "an enabled optional module whose file is absent: MC-ROUTING-005 warning",
     ["enabled_optional_module_file_missing"], CHECK_ROUTING, manifest=LABELS,
     out=["- MC-ROUTING-005 WARNING: Enabled optional module is missing: rules/labels.md"])
case("enabled-module-file-missing-read", "reading its task lists that module missing-optional, COMPLETE",
     ["enabled_optional_module_file_missing"], ["read", "--task", "artifact", "--explain", "--names-only"],
     manifest=LABELS, fields={"routing_completeness": "COMPLETE"},
     dispositions={"rules/labels.md": "missing-optional"})

# -- budgets ----------------------------------------------------------------------------------------
FILLER = ("The kettle must report the brewing state in one short line, never a paragraph, so that the "
          "status bar stays readable on the smallest window the desktop allows.")
FACETS = ("adoption-policy", "version-policy", "architecture", "compatibility", "security", "performance", "interface",
          "workflow", "lifecycle")
# fourteen entries, each its own structural identity (two subjects times the facets)
MANY = doc("Decisions", *(entry(f"MC-DEC-20270201-0000{n:04x}", f"Status line rule {n}",
                                subj=f"MC-SUBJ-20270105-0000a00{1 + n % 2}", facet=FACETS[n // 2],
                                body=f"{FILLER} Rule {n}.") for n in range(1, 15)))
case("budget-omits-entries", "over budget, whole entries are omitted from the end by ID (MC-OMIT-BUDGET)",
     ["budget_omits_whole_entries_by_id"], EXPLAIN, manifest=INIT, files={"decisions.md": MANY},
     fields={"routing_completeness": "COMPLETE", "conflict_status": "CLEAR"},
     dispositions={"decisions.md": "loaded"}, reasons={"decisions.md": "MC-ROUTE-TASK"},
     out=["Budget omissions:", "- MC-DEC-20270201-0000000e\n  Module: decisions.md\n"
          "  Disposition: omitted-by-budget\n  Reason: MC-OMIT-BUDGET"],
     not_out=["- MC-DEC-20270201-00000001\n  Module: decisions.md"])
LEGACY = "# Constraints\n\n" + "".join(f"- Kettle legacy rule number {n} stays as written.\n" for n in range(1, 90))
case("budget-omits-legacy-units", "legacy bullet units over budget are omitted by their stable unit reference",
     ["budget_omits_legacy_units_by_stable_reference"], ["read", "--task", "general", "--explain", "--names-only"],
     manifest=INIT, files={"constraints.md": LEGACY}, dispositions={"constraints.md": "loaded"},
     out=["- constraints.md#unit-89\n  Module: constraints.md\n  Disposition: omitted-by-budget"],
     not_out=["- constraints.md#unit-1\n"])
case("legacy-unit-listed", "list names a legacy bullet by its stable unit reference",
     ["list_legacy_unit_stable_reference"], ["list"],
     files={"constraints.md": "# Constraints\n\n- Keep the kettle quiet at night.\n"},
     out=["constraints.md#unit-1 [legacy; project]"])

# -- protocol 0.6 manifest and entry schema 1 ---------------------------------------------------------
V06 = {"protocol": {"protocol_version": "0.6", "entry_schema_version": "1", "routing_schema_version": None,
                    "conflict_schema_version": None, "routing_policy": None, "conflict_policy": None,
                    "initialized_with": "memory-custodian 0.3.0", "last_migrated_with": "memory-custodian 0.3.0"},
       "routes": {**INIT_ROUTES, "always": ["brief.md"],
                  "implementation": ["decisions.md", "constraints.md", "do-not-use.md"]}}
ONE_LINE_PROFILE = [("### Enabled profiles\n", "### Enabled profiles\n- `profiles/tasting.md`\n")]
TASTING = {"profiles/tasting.md": "# Profile: Tasting\n\nOnly for tasting sessions.\n"}
case("v06-one-line-profile", "a 0.6 manifest's one-line profile is explicit-only and loads when requested",
     ["protocol_06_manifest_one_line_profile_is_explicit_only"],
     [*EXPLAIN, "--profile", "tasting"], manifest=V06, edits=ONE_LINE_PROFILE, files=TASTING,
     fields={"routing_completeness": "COMPLETE", "local_overlay_status": "DISABLED"},
     loaded=["brief.md", "decisions.md", "constraints.md", "do-not-use.md", "profiles/tasting.md"],
     reasons={"profiles/tasting.md": "MC-ROUTE-EXPLICIT-PROFILE", "constraints.md": "MC-ROUTE-TASK"})
case("v06-routing-check", "check --routing of that 0.6 manifest warns where constraints are not reached",
     ["protocol_06_manifest_one_line_profile_is_explicit_only"], CHECK_ROUTING, manifest=V06,
     edits=ONE_LINE_PROFILE, files=TASTING,
     out=["MC-ROUTING-004 WARNING: Routing safety review required: artifact does not reach root constraints.md."])
WRAPPED = doc("Decisions", entry("MC-DEC-20270210-0000c001", "Wrapped body",
                                 body="```memory-custodian-body-v1\nStatus: literal text\n```"))
SCHEMA1 = {"manifest": {"protocol": {"entry_schema_version": "1"}}, "files": {"decisions.md": WRAPPED}}
case("entry-schema-1-check", "entries under entry schema 1 need migration: conflicts INVALID",
     ["entry_schema_1_requires_migration"], ["check", "--conflicts"], **SCHEMA1, exit=1,
     out=["Conflict status: INVALID", "migration to entry schema 2 is available"])
case("entry-schema-1-read", "a strict read under entry schema 1 fails and does not unwrap the body",
     ["entry_schema_1_requires_migration"], STRICT_IMPL, **SCHEMA1, exit="nonzero",
     out=["migration to entry schema 2 is available"], not_out=["Decision:\nStatus: literal text"])
case("entry-schema-1-show", "show prints the wrapped body as written",
     ["entry_schema_1_requires_migration"], ["show", "MC-DEC-20270210-0000c001"], **SCHEMA1,
     out=["```memory-custodian-body-v1\nStatus: literal text\n```"])

# -- merge review (the Git histories of the firing corpus's merge cases) ---------------------------------
MERGE = ["check", "--conflicts", "--merge-base", "right"]
case("merge-exact-owner", "both branches give one structural identity an active owner: MC-MERGE-003, CONFLICT",
     ["merge_review_exact_owner_conflict"], MERGE, from_corpus="MC-MERGE-003/fires", exit=1,
     out=["Merge review status: CONFLICT", "MC-MERGE-003"])
case("merge-same-canonical-ref", "both branches add Subjects with one Canonical-Ref: MC-MERGE-001, CONFLICT",
     ["merge_review_subjects_same_canonical_ref"], MERGE, from_corpus="MC-MERGE-001/fires", exit=1,
     out=["Merge review status: CONFLICT", "MC-MERGE-001"])
case("merge-two-custom-subjects", "both branches add Subjects that may be one: MC-MERGE-REVIEW-003, REVIEW (exit 0)",
     ["merge_review_subjects_two_custom_subjects"], MERGE, from_corpus="MC-MERGE-REVIEW-003/fires",
     out=["Merge review status: REVIEW", "MC-MERGE-REVIEW-003"])
case("merge-one-sided-subject", "a Subject added on one branch only is CLEAR",
     ["merge_review_one_sided_subject_clear"], MERGE, from_corpus="MC-MERGE-001/quiet",
     out=["Merge review status: CLEAR"], not_out=["both branches created"])
case("merge-supersede-vs-extend", "one branch supersedes an entry the other still uses: MC-MERGE-004",
     ["merge_review_supersede_vs_extend"], MERGE, from_corpus="MC-MERGE-004/fires", exit=1, out=["MC-MERGE-004"])
case("merge-delete-vs-modify", "one branch deletes an entry the other changed: MC-MERGE-REVIEW-006, REVIEW",
     ["merge_review_deletion_vs_modification"], MERGE, from_corpus="MC-MERGE-REVIEW-006/fires",
     out=["Merge review status: REVIEW", "MC-MERGE-REVIEW-006"])
case("merge-base-unknown", "a merge base Git cannot resolve blocks: CLEAR conflicts, review unavailable, exit 1",
     ["merge_review_unavailable_is_blocking"], ["check", "--conflicts", "--merge-base", "no-such-branch"],
     from_corpus="MC-MERGE-003/quiet", exit=1,
     out=["Conflict status: CLEAR", "Merge review unavailable:", "Conflict-free status was not established."])
case("merge-target-broken", "integrity problems on the target branch are MC-MERGE-006, not 'unavailable'",
     ["merge_review_target_unclosed_subject_fence"], MERGE, from_corpus="MC-MERGE-006/fires", exit=1,
     out=["MC-MERGE-006"], not_out=["Merge review unavailable:"])

# -- the local overlay ----------------------------------------------------------------------------------------
GENERAL = ["read", "--task", "general"]
PREFS = ["read", "--task", "preferences", "--strict-routing"]
NOTE = "No sound before nine."  # the body of the firing corpus's local preference


def local_prefs(eid: str, body: str, evidence: str = "Evidence:\n- user-confirmed\n") -> str:
    """A local preferences file with one entry."""
    return (f"# Local Preferences\n\n## {eid} — Local habit\n\nStatus: active\nScope: local-user\n{evidence}\n"
            f"Preference:\n{body}\n")


case("overlay-bound", "a bound overlay loads its preferences: BOUND, 'Local loaded:' lists them",
     ["local_overlay_bound_loads_and_no_local_excludes"], GENERAL, overlay={}, fields={"local_overlay_status": "BOUND"},
     out=["Local overlay status: BOUND", "Local loaded:", "- local/preferences.md", NOTE])
case("overlay-no-local", "--no-local leaves the overlay out: DISABLED",
     ["local_overlay_bound_loads_and_no_local_excludes"], [*GENERAL, "--no-local"], overlay={},
     out=["Local overlay status: DISABLED"], not_out=[NOTE])
case("overlay-unbound", "an overlay bound to another root is not loaded: UNBOUND",
     ["local_overlay_unbound_root_not_loaded"], GENERAL, overlay={"roots": ["/srv/another/kettle"]},
     fields={"local_overlay_status": "UNBOUND"}, out=["Local overlay status: UNBOUND"], not_out=[NOTE])
case("overlay-corrupt-manifest", "a corrupt local manifest: REVIEW, routing INCOMPLETE while shared routing is "
     "COMPLETE; strict exits 1", ["local_overlay_corrupt_manifest_incomplete"], [*GENERAL, "--strict-routing"],
     overlay={"manifest": "# not an overlay manifest\n"}, exit=1,
     fields={"local_overlay_status": "REVIEW", "routing_completeness": "INCOMPLETE"},
     out=["Local overlay status: REVIEW", "Routing completeness: INCOMPLETE", "Shared routing completeness: COMPLETE"])
case("overlay-invalid-entry", "a local entry without Evidence is not loaded: REVIEW, strict exits 1",
     ["local_overlay_invalid_entry_review"], PREFS,
     overlay={"preferences": local_prefs("MC-PREF-20270301-0000b001", "Never load me.", evidence="")}, exit=1,
     fields={"local_overlay_status": "REVIEW"}, not_out=["Never load me."])
case("overlay-shared-id", "a local entry reusing a shared entry's ID is not loaded: REVIEW",
     ["local_overlay_duplicate_shared_id_review"], PREFS,
     files={"preferences.md": "# Preferences\n\n" + entry("MC-PREF-20270301-0000b002", "Shared habit",
                                                          kind="Preference")},
     overlay={"preferences": local_prefs("MC-PREF-20270301-0000b002", "Local twin body.")}, exit=1,
     fields={"local_overlay_status": "REVIEW"}, out=["across shared/local storage"], not_out=["Local twin body."])
case("overlay-many-roots", "an overlay bound to several roots is held for review and not loaded",
     ["local_overlay_multi_root_review"], ["read", "--task", "preferences"],
     overlay={"roots": ["<root>", "/srv/another/kettle"]}, fields={"local_overlay_status": "REVIEW",
                                                                   "routing_completeness": "INCOMPLETE"},
     out=["Local overlay status: REVIEW"], not_out=[NOTE])
