"""The usage a parse error prints after ``Invalid sub-command`` (as Oozie's CLI does), and that
``bundletui oozie help`` prints whole: one place, so the two never differ."""

from __future__ import annotations

USAGE = {
    "job": (
        "bundletui oozie job <OPTIONS> : job operations\n"
        "  -submit | -run | -dryrun   with -config <file.properties|.xml> [-D name=value ...]\n"
        "  -start|-suspend|-resume|-kill|-info|-definition|-configcontent|-log|-errorlog|-auditlog <id>\n"
        "  -kill <coordId> -action 1,3-4 | -date d1::d2\n"
        "  -change <id> -value endtime=..;concurrency=..;pausetime=..;status=RUNNING\n"
        "  -rerun <id>  coordinator: -action|-date [-refresh] [-nocleanup] [-failed] [-config|-D]\n"
        "               bundle: -coordinator c1,c2 and/or -date d1::d2 [-refresh] [-nocleanup]\n"
        "               workflow: -config/-D oozie.wf.rerun.skip.nodes=a,b | oozie.wf.rerun.failnodes=true\n"
        "  -ignore <coordId> [-action 1,3-4]\n"
        "  -info <id> [-len n] [-offset n] [-order desc] [-filter status=..;nominaltime>=..]\n"
        "             [-verbose] [-allruns] [-localtime] [-timezone ID]\n"
        "  --home DIR  the store (default $BUNDLETUI_HOME or ~/.bundletui); -oozie URL is ignored"
    ),
    "admin": (
        "bundletui oozie admin <OPTIONS> : admin operations\n"
        "  -status                  the system mode\n"
        "  -systemmode NORMAL|NOWEBSERVICE|SAFEMODE   set it (SAFEMODE: no job changes)\n"
        "  -version                 the build version  --home DIR\n"
        "  -purge wf=30;coord=7;bundle=7;limit=100   delete ended jobs older than so many days"
    ),
    "version": "bundletui oozie version : the client build version",
    "validate": "bundletui oozie validate <file> : validate a workflow, coordinator or bundle XML file",
    "jobs": (
        "bundletui oozie jobs <OPTIONS> : jobs status\n"
        "  -jobtype wf|coordinator|bundle  -filter name=value;...  -len n  -offset n\n"
        "  [-verbose] [-localtime] [-timezone ID] [-kill|-suspend|-resume]  --home DIR"
    ),
}
