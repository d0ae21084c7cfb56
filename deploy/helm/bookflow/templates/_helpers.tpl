{{/* The release's name for its resources: the release name, with "-bookflow" unless it says so. */}}
{{- define "bookflow.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "bookflow.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* bookflow.selector takes (list $ "api"): the labels that pick one component's pods. */}}
{{- define "bookflow.selector" -}}
app.kubernetes.io/name: {{ (index . 0).Chart.Name }}
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "bookflow.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "bookflow.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ .Values.serviceAccount.name | default (include "bookflow.fullname" .) }}
{{- else -}}
{{ .Values.serviceAccount.name | default "default" }}
{{- end -}}
{{- end -}}

{{/*
The variables that hold secrets (docs/configuration.md): they come from the Secret only, never
from the ConfigMap. DATABASE_URL, DATABASE_READ_URL and REDIS_URL carry passwords;
OTEL_EXPORTER_OTLP_HEADERS may carry a collector's token.
*/}}
{{- define "bookflow.secretNames" -}}
{{- list "DATABASE_URL" "DATABASE_READ_URL" "REDIS_URL" "ADMIN_TOKEN" "AUTH_JWT_SECRET" "BOOKING_ID_KEY" "STRIPE_API_KEY" "STRIPE_WEBHOOK_SECRET" "CONSOLE_OIDC_CLIENT_SECRET" "OTEL_EXPORTER_OTLP_HEADERS" "PAYLOAD_ENCRYPTION_KEYS" | toJson -}}
{{- end -}}

{{/* The Secret's name, after refusing values that would put a secret where it does not belong. */}}
{{- define "bookflow.secretName" -}}
{{- $secrets := include "bookflow.secretNames" . | fromJsonArray -}}
{{- range $k, $_ := .Values.config -}}
{{- if has $k $secrets -}}
{{- fail (printf "config.%s is a secret: put it in the Secret (existingSecret), not in config" $k) -}}
{{- end -}}
{{- if has $k (list "HTTP_ADDR" "METRICS_ADDR") -}}
{{- fail (printf "config.%s comes from httpPort and metricsPort: set those instead" $k) -}}
{{- end -}}
{{- end -}}
{{- if .Values.devSecret.enabled -}}
{{- if .Values.existingSecret -}}
{{- fail "existingSecret and devSecret.enabled are exclusive: the chart creates no Secret when you bring one" -}}
{{- end -}}
{{- range $k, $_ := .Values.devSecret.values -}}
{{- if not (has $k $secrets) -}}
{{- fail (printf "devSecret.values.%s is not one of bookflow's secrets (%s); configuration goes in config" $k (join ", " $secrets)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- .Values.existingSecret | default (include "bookflow.fullname" .) -}}
{{- end -}}

{{/* The environment of the API and the worker: the ConfigMap, then the Secret. */}}
{{- define "bookflow.envFrom" -}}
envFrom:
  - configMapRef:
      name: {{ include "bookflow.fullname" . }}
  - secretRef:
      name: {{ include "bookflow.secretName" . }}
{{- end -}}

{{/*
Pod-level settings shared by every pod of the chart. The migration hook runs before the
release's own ServiceAccount exists on install: it takes the namespace's default one, or the
one named when the chart creates none.
*/}}
{{- define "bookflow.podSpec" -}}
{{- $hook := index . 1 -}}
{{- with index . 0 -}}
serviceAccountName: {{ if and $hook .Values.serviceAccount.create }}default{{ else }}{{ include "bookflow.serviceAccountName" . }}{{ end }}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}
{{- end -}}
