package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The charts drawn from Markdown tables, and the reference's charts being those of its tables. */
class MarkdownChartsTest {
    /** docs/ seen from the module directory, where Maven runs the tests. */
    private static final Path DOCS = Path.of("..", "docs");

    @Test
    void aCommentTurnsTheNamedColumnsOfTheNextTableIntoPanels() {
        Map<String, BarChart> charts = MarkdownCharts.read("""
                Text.

                <!-- chart: demo; title: A <demo>; value: ops/s | p50 µs;
                     panel: Shape; note: run 1; command: java -jar benchmarks.jar -->
                | Shape | Contender | ops/s | p50 µs |
                |---|---|---:|---:|
                | one | baton | **6,997** | 143.4 |
                | one | redisson | 5,122 | 232.2 |
                | one | ping-floor: idle | | 49.4 |
                | two | baton | 10,000 | ? |

                <!-- chart: demo; value: ops/s -->
                | Contender | ops/s |
                |---|---|
                | baton \\| direct | 1.37x |
                """);

        assertThat(charts).containsOnlyKeys("demo");
        BarChart chart = charts.get("demo");
        assertThat(chart.title()).isEqualTo("A <demo>");
        assertThat(chart.panels()).extracting(BarChart.Panel::title)
                .containsExactly("one: ops/s", "one: p50 µs", "two: ops/s", "ops/s");
        assertThat(chart.panels().get(0).bars()).containsExactly(new BarChart.Bar("baton", 6997, "6,997"),
                new BarChart.Bar("redisson", 5122, "5,122"));
        assertThat(chart.panels().get(1).bars()).extracting(BarChart.Bar::label)
                .containsExactly("baton", "redisson", "ping-floor: idle");
        assertThat(chart.panels().get(3).bars()).containsExactly(new BarChart.Bar("baton | direct", 1.37, "1.37x"));

        String svg = chart.svg();
        assertThat(svg).startsWith("<svg ").endsWith("</svg>\n").contains("A &lt;demo&gt;", ">6,997<", "run 1",
                "java -jar benchmarks.jar", BarChart.Kind.BATON.colour, BarChart.Kind.PEER.colour,
                BarChart.Kind.FLOOR.colour);
    }

    @Test
    void aBarFarBeyondTheOthersIsCutAndMarkedOffScale() {
        String svg = new BarChart("t").panel("p", List.of(new BarChart.Bar("baton", 3_327_548),
                new BarChart.Bar("bucket4j", 9_347), new BarChart.Bar("redisson", Double.NaN))).svg();

        assertThat(svg).contains("3,327,548 (off scale)", "9,347").doesNotContain("redisson");
    }

    @Test
    void theReferenceChartsAreDrawnFromTheReferenceTables() throws Exception {
        Map<String, BarChart> charts = MarkdownCharts.read(
                Files.readString(DOCS.resolve("benchmarks.md"), StandardCharsets.UTF_8));

        assertThat(charts).containsKeys("lock-uncontended", "lock-threads", "lock-contended", "fair-lock",
                "read-write-lock", "semaphore", "redlock", "rate-limiter", "topologies", "spring-annotations");
        for (Map.Entry<String, BarChart> e : charts.entrySet()) {
            Path file = DOCS.resolve("benchmarks").resolve(e.getKey() + ".svg");
            assertThat(e.getValue().panels()).as(e.getKey()).isNotEmpty();
            assertThat(file).as("docs/benchmarks/%s.svg: after changing a table of docs/benchmarks.md, run"
                            + " java -jar baton-bench/target/benchmarks.jar --charts-from docs/benchmarks.md",
                    e.getKey()).usingCharset(StandardCharsets.UTF_8).hasContent(e.getValue().svg());
        }
    }
}
