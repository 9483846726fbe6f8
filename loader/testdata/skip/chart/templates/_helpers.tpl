{{/* not a manifest at all */}}
