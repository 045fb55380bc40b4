package dev.baton.sale;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** The sale service's HTTP API as the tests call it, on one instance. Thread-safe. */
final class SaleApi {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(1);

    private final HttpClient client;
    private final URI base;

    /**
     * @param client the client, shared by the callers
     * @param base   the instance's {@code http://host:port}
     */
    SaleApi(HttpClient client, URI base) {
        this.client = client;
        this.base = base;
    }

    /**
     * @param item the item
     * @param user the buyer
     * @return the response, whatever its status
     */
    HttpResponse<String> purchase(String item, String user) {
        return send(HttpRequest.newBuilder(uri("/api/items/" + item + "/purchases?user="
                + URLEncoder.encode(user, StandardCharsets.UTF_8))).POST(HttpRequest.BodyPublishers.noBody()));
    }

    /**
     * @param item  the item, created if absent
     * @param stock its new stock
     * @return the item afterwards
     */
    ItemStock setStock(String item, long stock) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/api/admin/items/" + item + "/stock"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"stock\":" + stock + "}")));
        return read(expectOk(response), ItemStock.class);
    }

    /**
     * @param item the item
     * @return its stock
     */
    ItemStock item(String item) {
        return read(expectOk(send(HttpRequest.newBuilder(uri("/api/items/" + item)).GET())), ItemStock.class);
    }

    /** @return every item */
    List<ItemStock> items() {
        return JSON.readValue(expectOk(send(HttpRequest.newBuilder(uri("/api/items")).GET())).body(),
                new TypeReference<List<ItemStock>>() { });
    }

    /** @return every restock run so far */
    List<RestockRecord> restocks() {
        return JSON.readValue(expectOk(send(HttpRequest.newBuilder(uri("/api/restocks")).GET())).body(),
                new TypeReference<List<RestockRecord>>() { });
    }

    /**
     * @param path a path on the instance
     * @return the response to a GET of it
     */
    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /**
     * @param response a 201 purchase response
     * @return its receipt
     */
    static Receipt receipt(HttpResponse<String> response) {
        return read(response, Receipt.class);
    }

    private static <T> T read(HttpResponse<String> response, Class<T> type) {
        return JSON.readValue(response.body(), type);
    }

    private static HttpResponse<String> expectOk(HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            throw new AssertionError(response.request().method() + " " + response.uri() + " answered "
                    + response.statusCode() + ": " + response.body());
        }
        return response;
    }

    private URI uri(String path) {
        return base.resolve(path);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return client.send(request.timeout(REQUEST_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("request to " + base + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
