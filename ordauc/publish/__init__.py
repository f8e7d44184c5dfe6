"""Publishing: a study's page and the index over a folder of studies, from the report of
:mod:`ordauc.report` and the findings of :mod:`ordauc.claims`.

The report and the claims are peers (neither imports the other); this package is the one
place that combines them (:mod:`ordauc.publish.study`), into the claims' files
(:mod:`ordauc.publish.claims_files`) and the pages (:mod:`ordauc.publish.page`). A paper
outside the four is a folder whose modules register its claims, figure families and report
sections (:mod:`ordauc.publish.papers`).
"""
