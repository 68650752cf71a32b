"""Conformance cases: conflicts, reconciliations, entry integrity, reachability, freshness,
Subject merge preview (registered in cases.CASES on import)."""

from cases import CHECK_CONFLICTS, INIT_ROUTES, NOT_APPROVED, STRICT_IMPL, case, decl, doc, entry, registry, subject

S1, S2 = "MC-SUBJ-20270301-0000f001", "MC-SUBJ-20270301-0000f002"
HEATING = registry(subject(S1, "Heating element", "Canonical-Ref: feature:heating-element\n"))
TWO_OWNERS = {"subjects.md": HEATING, "constraints.md": doc(
    "Constraints",
    entry("MC-CON-20270301-0000c001", "Element stays below boiling", kind="Constraint", subj=S1),
    entry("MC-CON-20270301-0000c002", "Element may boil", kind="Constraint", subj=S1))}
OWNERS = "Entries: MC-CON-20270301-0000c001, MC-CON-20270301-0000c002."

# -- owners and conflicts --------------------------------------------------------------------------
case("two-active-owners", "two active entries owning one Subject/Facet/Scope: MC-CONFLICT-001, check exits 1",
     ["duplicate_active_owner_check_conflicts"], CHECK_CONFLICTS, files=TWO_OWNERS, exit=1,
     codes=["MC-CONFLICT-001"], out=["Conflict status: CONFLICT",
                                     "- MC-CONFLICT-001 CONFLICT: Multiple active owners for one structural identity. "
                                     f"[Subject: {S1.lower()}; Facet: behavior; Scope: project] {OWNERS}"])
case("two-active-owners-strict-read", "a strict read of two active owners is refused (exit 2, CONFLICT)",
     ["duplicate_active_owner_strict_read"], STRICT_IMPL, files=TWO_OWNERS, exit=2,
     fields={"conflict_status": "CONFLICT"}, out=[NOT_APPROVED])
RECONCILED_ENTRIES = {"subjects.md": registry(subject(S1, "Lid latch")), "decisions.md": doc(
    "Decisions",
    entry("MC-DEC-20270301-0000d001", "Latch clicks", subj=S1, facet="behavior"),
    entry("MC-DEC-20270301-0000d002", "Latch adopted from the old model", subj=S1, facet="adoption-policy"))}


def reconciliation(rid: str) -> str:
    """A reconciliation saying the two latch decisions are distinct."""
    return (f"## {rid} — The latch decisions are separate\n\nStatus: active\nResolution: distinct\nEntries:\n"
            "- MC-DEC-20270301-0000d001\n- MC-DEC-20270301-0000d002\nEvidence:\n- user-confirmed\n")


ONE_REC = {**RECONCILED_ENTRIES, "reconciliations.md": "# Reconciliations\n\n" + reconciliation(
    "MC-REC-20270301-0000e001")}
case("reconciliation-distinct", "a valid 'distinct' reconciliation leaves conflicts CLEAR",
     ["valid_distinct_reconciliation"], CHECK_CONFLICTS, files=ONE_REC, out=["Conflict status: CLEAR"])
case("reconciliation-listed", "list shows a reconciliation by its ID, not as an anonymous unit",
     ["valid_distinct_reconciliation"], ["list"], files=ONE_REC, out=["MC-REC-20270301-0000e001"],
     not_out=["reconciliations.md#unit-"])
case("reconciliation-twice", "two reconciliations of the same entries: MC-CONFLICT-008 INVALID",
     ["duplicate_reconciliation_identity"], CHECK_CONFLICTS, files={
         **RECONCILED_ENTRIES, "reconciliations.md": "# Reconciliations\n\n" + reconciliation(
             "MC-REC-20270301-0000e001") + "\n" + reconciliation("MC-REC-20270301-0000e002")},
     exit=1, out=["Conflict status: INVALID", "MC-CONFLICT-008 INVALID"])
case("reconciliation-bad-heading", "a reconciliation heading without a valid ID: MC-CONFLICT-008 INVALID",
     ["malformed_reconciliation_heading"], CHECK_CONFLICTS,
     files={"reconciliations.md": "# Reconciliations\n\n## MC-REC-latch — Not an ID\n\nStatus: active\n"},
     exit=1, out=["Conflict status: INVALID", "MC-CONFLICT-008"])

# -- project and area scopes -------------------------------------------------------------------------
AREA = {"routes": INIT_ROUTES, "areas": [decl("areas/base.md", "explicit-only")]}
SCOPES = {"subjects.md": registry(subject(S1, "Cord length")), "constraints.md": doc(
    "Constraints", entry("MC-CON-20270301-0000c011", "Cord is one metre", kind="Constraint", subj=S1))}


def area_entry(extra: str = "") -> dict:
    """The area file: an area-scoped constraint on the same Subject/Facet (``extra`` adds a field)."""
    return {"areas/base.md": doc("Base station", entry("MC-CON-20270301-0000c012", "Base station cord is longer",
                                                       kind="Constraint", scope="area:base", subj=S1,
                                                       extra=extra))}


case("area-overlaps-project", "an area entry on the project entry's Subject/Facet: MC-CONFLICT-002, REVIEW",
     ["project_area_overlap_review"], CHECK_CONFLICTS, manifest=AREA, files={**SCOPES, **area_entry()},
     codes=["MC-CONFLICT-002"], out=["Conflict status: REVIEW"])
case("area-exception-valid", "an area entry declaring Exception-To the project entry is CLEAR",
     ["project_area_valid_exception_clear"], CHECK_CONFLICTS, manifest=AREA,
     files={**SCOPES, **area_entry("Exception-To: MC-CON-20270301-0000c011\n")}, out=["Conflict status: CLEAR"])
BROKEN_EXCEPTION = {**SCOPES, **area_entry("Exception-To: MC-CON-20270301-0000ffff\n")}
case("area-exception-broken", "Exception-To an entry that does not exist: MC-CONFLICT-006 INVALID",
     ["project_area_broken_exception_invalid"], CHECK_CONFLICTS, manifest=AREA, files=BROKEN_EXCEPTION, exit=1,
     codes=["MC-CONFLICT-006"], out=["Conflict status: INVALID"])
case("area-exception-broken-freshness", "check --freshness names the broken Exception-To as MC-FRESH-004",
     ["project_area_broken_exception_invalid"], ["check", "--freshness"], manifest=AREA, files=BROKEN_EXCEPTION,
     exit=1, out=["MC-FRESH-004", "Exception-To"])
TWO_AREAS = {"routes": INIT_ROUTES, "areas": [decl("areas/pump.md", "path-or-explicit", paths=["pump/**"]),
                                              decl("areas/lamp.md", "path-or-explicit", paths=["lamp/**"])]}
AREA_FILES = {"subjects.md": registry(subject(S2, "Indicator colour")),
              "areas/pump.md": doc("Pump", entry("MC-AREA-20270301-0000a011", "Pump light is blue", scope="area:pump",
                                                 subj=S2)),
              "areas/lamp.md": doc("Lamp", entry("MC-AREA-20270301-0000a012", "Lamp light is amber", scope="area:lamp",
                                                 subj=S2))}
BOTH_PATHS = ["read", "--task", "implementation", "--path", "lamp/led.c", "--path", "pump/valve.c", "--names-only"]
case("two-areas-same-identity", "two loaded areas owning one Subject/Facet: MC-CONFLICT-009, REVIEW (exit 0)",
     ["matched_areas_same_subject_facet_review"], BOTH_PATHS, manifest=TWO_AREAS, files=AREA_FILES,
     fields={"conflict_status": "REVIEW"}, codes=["MC-CONFLICT-009"])
case("two-areas-same-identity-strict", "the same read with --strict-routing is refused (exit 2)",
     ["matched_areas_same_subject_facet_review"], [*BOTH_PATHS, "--strict-routing"], manifest=TWO_AREAS,
     files=AREA_FILES, exit=2)
case("two-areas-check-clear", "check --conflicts of those areas alone is CLEAR (the overlap needs both loaded)",
     ["matched_areas_same_subject_facet_review"], CHECK_CONFLICTS, manifest=TWO_AREAS, files=AREA_FILES,
     out=["Conflict status: CLEAR"])

# -- entry integrity ----------------------------------------------------------------------------------
S3 = "MC-SUBJ-20270302-0000f003"
case("entry-integrity-live-and-archive", "unknown fields, empty Evidence and a promoted entry with no target make a "
     "strict read INVALID, in live files and in the archive",
     ["entry_integrity_live_and_archive_invalid"], STRICT_IMPL, exit=2, files={
         "subjects.md": registry(subject(S3, "Spout shape")),
         "decisions.md": doc("Decisions",
                             entry("MC-DEC-20270302-0000d021", "Spout curves", subj=S3, extra="Colour: teal\n",
                                   evidence=""),
                             entry("MC-DEC-20270302-0000d022", "Spout moved to rules", status="promoted", subj=S3,
                                   facet="interface")),
         "archive/decisions-2026.md": doc("Archived decisions",
                                          entry("MC-DEC-20270302-0000d023", "Old spout", subj=S3, facet="workflow",
                                                extra="Flavour: mint\n"))},
     fields={"conflict_status": "INVALID"},
     out=["Conflict status: INVALID", "unknown field Colour", "Evidence", "promoted entry", "unknown field Flavour"])
case("status-twice", "an entry that gives Status twice is INVALID",
     ["duplicate_status_field_invalid"], CHECK_CONFLICTS, exit=1, files={"decisions.md": doc(
         "Decisions", entry("MC-DEC-20270302-0000d031", "Twice", extra="Status: active\n"))},
     out=["Conflict status: INVALID", "duplicate Status"])
BAD_REGISTRY = {"subjects.md": "# Subject Registry\n\n" + subject(S3, "Water window").replace(
    "Status: active\n", "Status: active\nStatus: active\n")}
case("registry-schema-invalid", "a registry entry that breaks the Subject schema: MC-CONFLICT-010 INVALID",
     ["subject_registry_schema_invalid"], CHECK_CONFLICTS, files=BAD_REGISTRY, exit=1, codes=["MC-CONFLICT-010"],
     out=["INVALID"])
case("registry-schema-invalid-strict-read", "a strict read over a broken registry is refused (exit 2)",
     ["subject_registry_schema_invalid"], [*STRICT_IMPL, "--path", "tools"], files=BAD_REGISTRY, exit=2)
case("canonical-ref-twice", "two Subjects with one Canonical-Ref (case aside): MC-CONFLICT-003 INVALID",
     ["duplicate_canonical_ref_in_worktree"], CHECK_CONFLICTS, exit=1, codes=["MC-CONFLICT-003"], files={
         "subjects.md": registry(subject(S1, "Base plate", "Canonical-Ref: feature:plate\n"),
                                 subject(S2, "Hot plate", "Canonical-Ref: feature:Plate\n"))})
case("supersession-into-archive", "a live entry superseding one kept in the archive resolves: CLEAR",
     ["live_supersession_resolves_to_archive"], CHECK_CONFLICTS, files={
         "subjects.md": registry(subject(S3, "Descaling")),
         "decisions.md": doc("Decisions", entry("MC-DEC-20270302-0000d041", "Descale monthly", subj=S3,
                                                facet="architecture",
                                                evidence="- user-confirmed\nSupersedes: MC-DEC-20261101-0000d040\n")),
         "archive/decisions-2026.md": doc("Archived decisions", entry(
             "MC-DEC-20261101-0000d040", "Descale weekly", status="superseded", subj=S3, facet="architecture",
             extra="Superseded-By: MC-DEC-20270302-0000d041\n"))},
     out=["Conflict status: CLEAR"], not_out=["references missing entry"])

# -- reachability and freshness -------------------------------------------------------------------------
case("unreachable-constraint", "an active constraint in a file no route loads: MC-REACH-001 error",
     ["unreachable_hard_constraint"], ["check", "--reachability"], exit=1, files={
         "subjects.md": registry(subject(S3, "Safety cut-off")),
         "stray.md": doc("Stray", entry("MC-CON-20270302-0000c051", "Cut off when dry", kind="Constraint",
                                        subj=S3))},
     out=["MC-REACH-001 ERROR"])
case("freshness-evidence-and-relation", "Evidence naming a missing file (MC-FRESH-001) and Superseded-By an unknown "
     "entry (MC-FRESH-004)", ["freshness_missing_evidence_and_broken_relation"], ["check", "--freshness"], exit=1,
     files={"subjects.md": registry(subject(S3, "Manual")), "decisions.md": doc(
         "Decisions",
         entry("MC-DEC-20270302-0000d061", "Follow the manual", subj=S3, facet="architecture",
               evidence="- repo:docs/no-such-manual.md\n"),
         entry("MC-DEC-20270302-0000d062", "Old manual layout", status="superseded", subj=S3, facet="interface",
               evidence="- user-confirmed\nSuperseded-By: MC-DEC-20270302-0000dfff\n"))},
     out=["MC-FRESH-001 ERROR", "MC-FRESH-004 ERROR", "MC-DEC-20270302-0000d062"])
MERGED = registry(subject(S1, "Old name", f"Merged-Into: {S2}\n", status="merged"), subject(S2, "New name"))
case("freshness-merged-subject", "an active entry on a merged Subject: MC-FRESH-005",
     ["freshness_active_entry_on_merged_subject"], ["check", "--freshness"], exit=1,
     files={"subjects.md": MERGED, "decisions.md": doc("Decisions", entry("MC-DEC-20270302-0000d071", "Stale owner",
                                                                        subj=S1, facet="interface"))},
     out=["MC-FRESH-005", "active registry entry"])

# -- Subject merge preview ----------------------------------------------------------------------------------
case("subject-merge-preview", "subject merge previews the result, names the owner that would block, writes nothing",
     ["subject_merge_preview_reports_downstream_owner_blocker"], ["subject", "merge", S1, "--into", S2],
     files={"subjects.md": registry(subject(S1, "Water gauge"), subject(S2, "Level window")),
            "constraints.md": doc("Constraints",
                                  entry("MC-CON-20270302-0000c081", "Gauge is marked", kind="Constraint", subj=S1),
                                  entry("MC-CON-20270302-0000c082", "Window is lit", kind="Constraint", subj=S2))},
     unchanged=True, out=["Subject merge preview:", "Resulting structural identity",
                          "Transactional Subject merge apply requires Protocol 0.8."])
