module github.com/prometheus/node_exporter

go 1.25.0
