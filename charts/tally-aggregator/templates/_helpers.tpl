{{/*
The name of everything the chart creates: fixed per input, because the shipped ClusterRoles
(files/rbac/) have fixed names and grant the one Lease of that name.
*/}}
{{- define "tally.name" -}}
{{- if eq .Values.input "kyverno" -}}tally-kyverno-aggregator
{{- else if eq .Values.input "trivy" -}}tally-trivy-aggregator
{{- else -}}tally-aggregator{{- end -}}
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

{{- define "tally.rbacFile" -}}
{{- if eq .Values.input "kyverno" -}}files/rbac/kyverno-aggregator.yaml
{{- else if eq .Values.input "trivy" -}}files/rbac/trivy-aggregator.yaml
{{- else -}}files/rbac/clusterroles.yaml{{- end -}}
{{- end -}}
