{{/*
The fixed name of the input's ClusterRoles (files/rbac/, shipped in the input's jar) and of
the one Lease its -lease role grants: neither nameOverride nor fullnameOverride changes it.
*/}}
{{- define "tally.roleName" -}}
{{- if eq .Values.input "kyverno" -}}tally-kyverno-aggregator
{{- else if eq .Values.input "trivy" -}}tally-trivy-aggregator
{{- else if eq .Values.input "gatekeeper" -}}tally-gatekeeper-aggregator
{{- else -}}tally-aggregator{{- end -}}
{{- end -}}

{{/* The app.kubernetes.io/name label: nameOverride, or the input's role name. */}}
{{- define "tally.name" -}}
{{- default (include "tally.roleName" .) .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The name of every object the chart creates besides the ClusterRoles: fullnameOverride, or the name
(not prefixed by the release's: one release per input per cluster, README).
*/}}
{{- define "tally.fullname" -}}
{{- default (include "tally.name" .) .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The ServiceAccount the Pods run as and the bindings name: the chart's own (serviceAccount.create),
or one that exists already, which must then be named: the roles are bound to it, and binding them
to a namespace's "default" account would grant them to every Pod that runs as it.
*/}}
{{- define "tally.serviceAccountName" -}}
{{- if eq .Values.input "gatekeeper" -}}
{{- /* the sidecar runs as Gatekeeper's audit: its ServiceAccount, in the release's namespace */ -}}
{{- default "gatekeeper-admin" .Values.serviceAccount.name -}}
{{- else if .Values.serviceAccount.create -}}
{{- default (include "tally.fullname" .) .Values.serviceAccount.name -}}
{{- else if .Values.serviceAccount.name -}}
{{- .Values.serviceAccount.name -}}
{{- else -}}
{{- fail "serviceAccount.create=false needs serviceAccount.name: the chart binds the aggregator's roles to that existing ServiceAccount" -}}
{{- end -}}
{{- end -}}

{{- define "tally.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tally.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "tally.labels" -}}
{{ include "tally.selectorLabels" . }}
app.kubernetes.io/part-of: tally
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{/*
The Pods' labels: the chart's, then podLabels, which may add labels but not replace a selector's
(the Deployment would no longer find its Pods).
*/}}
{{- define "tally.podLabels" -}}
{{- $selector := include "tally.selectorLabels" . | fromYaml -}}
{{- range $key, $value := .Values.podLabels -}}
{{- if hasKey $selector $key -}}
{{- fail (printf "podLabels.%s: the chart sets it to select its Pods; choose another label" $key) -}}
{{- end -}}
{{- end -}}
{{ include "tally.labels" . }}
{{- with .Values.podLabels }}
{{ toYaml . }}
{{- end -}}
{{- end -}}

{{- define "tally.rbacFile" -}}
{{- if eq .Values.input "kyverno" -}}files/rbac/kyverno-aggregator.yaml
{{- else if eq .Values.input "trivy" -}}files/rbac/trivy-aggregator.yaml
{{- else if eq .Values.input "gatekeeper" -}}files/rbac/gatekeeper-aggregator.yaml
{{- else -}}files/rbac/clusterroles.yaml{{- end -}}
{{- end -}}
