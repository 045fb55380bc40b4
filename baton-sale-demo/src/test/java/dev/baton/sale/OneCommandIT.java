package dev.baton.sale;

import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * {@code java -jar baton-sale-demo.jar} with no Redis configured: the service starts its own redis-server, seeds the
 * catalogue, serves its API and Swagger UI, says where the UI is, and stops the redis-server when it stops.
 */
class OneCommandIT {

    private static final Pattern EMBEDDED_PID = Pattern.compile(
            "started an embedded redis-server at redis://127\\.0\\.0\\.1:\\d+ \\(pid (\\d+)\\)");

    @Test
    void runsOnItsOwnRedisAndStopsItOnExit() {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        long redisPid;
        SaleInstance instance = SaleInstance.start("sale-one-command");
        try {
            SaleApi api = new SaleApi(client, instance.base());
            String output = instance.output();
            Matcher embedded = EMBEDDED_PID.matcher(output);
            assertThat(embedded.find()).as("the embedded redis-server in the log:%n%s", output).isTrue();
            redisPid = Long.parseLong(embedded.group(1));
            assertThat(output).contains("Swagger UI: http://localhost:" + instance.base().getPort()
                    + "/swagger-ui/index.html");

            assertThat(api.items()).extracting(ItemStock::item, ItemStock::stock)
                    .contains(tuple("gadget", 100L), tuple("widget", 100L));
            HttpResponse<String> health = api.get("/actuator/health");
            assertThat(health.body()).contains("\"redis\":{", "\"baton\":{", "\"status\":\"UP\"");
            HttpResponse<String> baton = api.get("/actuator/baton");
            assertThat(baton.statusCode()).as("the starter's Actuator endpoint is exposed").isEqualTo(200);
            assertThat(baton.body()).contains("\"heldLocks\"");
            assertThat(api.get("/actuator/metrics").statusCode()).isEqualTo(200);
            assertThat(api.get("/actuator/info").statusCode()).isEqualTo(200);
            HttpResponse<String> docs = api.get("/v3/api-docs");
            assertThat(docs.statusCode()).isEqualTo(200);
            assertThat(docs.body()).contains("\"/api/items/{item}/purchases\"", "\"operationId\":\"purchase\"",
                    "\"/api/admin/items/{item}/stock\"", "\"/api/restocks\"");
            assertThat(api.get("/swagger-ui/index.html").statusCode()).isEqualTo(200);
            assertThat(api.get("/api/items/no-such-item").statusCode()).isEqualTo(404);
            assertThat(api.get("/api/items/not%20a%20name").statusCode()).isEqualTo(400);
        } finally {
            instance.close();
        }

        assertThat(instance.process().exitValue()).as("exit status after SIGTERM").isIn(0, 143);
        assertThat(instance.output()).contains("Stopped the embedded redis-server");
        await("the embedded redis-server (pid " + redisPid + ") to be gone").atMost(Duration.ofSeconds(30))
                .until(() -> ProcessHandle.of(redisPid).map(p -> !p.isAlive()).orElse(true));
    }
}
