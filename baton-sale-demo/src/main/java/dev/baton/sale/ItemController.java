package dev.baton.sale;

import dev.baton.spring.Limit;
import dev.baton.spring.RateLimited;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;

/**
 * The buyers' API: stock and purchases. A buyer may purchase {@value #BUYER_PERMITS} times per
 * {@code sale.buyer-limit.period} (default one minute), whatever the item and whichever instance answers.
 */
@RestController
@RequestMapping("/api/items")
@Tag(name = "Items", description = "Stock and purchases")
public class ItemController {

    /** Purchases one buyer may make per period; an annotation's permits are a constant, unlike its period. */
    static final long BUYER_PERMITS = 5;

    private final StockStore store;
    private final StockService stock;

    /**
     * @param store where the stock lives, for reads
     * @param stock the locked stock operations
     */
    public ItemController(StockStore store, StockService stock) {
        this.store = store;
        this.stock = stock;
    }

    /**
     * @return every item's stock, by name
     */
    @GetMapping
    @Operation(operationId = "listItems", summary = "List every item's stock")
    public List<ItemStock> items() {
        return store.items().stream().flatMap(item -> store.view(item).stream()).toList();
    }

    /**
     * @param item the item
     * @return its stock
     * @throws UnknownItemException if there is no such item
     */
    @GetMapping("/{item}")
    @Operation(operationId = "getItem", summary = "One item's stock")
    @ApiResponse(responseCode = "200", description = "The item's stock")
    @ApiResponse(responseCode = "404", description = "No such item",
            content = @Content(schema = @Schema(implementation = ProblemDetail.class)))
    public ItemStock item(@Parameter(description = "Item name", example = "widget") @PathVariable String item) {
        return store.view(item).orElseThrow(() -> new UnknownItemException(item));
    }

    /**
     * Buys one unit, under the item's lock, charged to the buyer's rate limit first.
     *
     * @param item the item
     * @param user the buyer
     * @return the receipt
     * @throws SoldOutException     if the stock is 0
     * @throws UnknownItemException if there is no such item
     */
    @PostMapping("/{item}/purchases")
    @ResponseStatus(HttpStatus.CREATED)
    @RateLimited(key = "'buyer:' + #user",
            limits = @Limit(permits = BUYER_PERMITS, period = "${sale.buyer-limit.period:1m}"))
    @Operation(operationId = "purchase", summary = "Buy one unit of an item",
            description = "Decrements the stock under the item's distributed lock and returns a receipt carrying the"
                    + " lock's fencing token. Each buyer may purchase " + BUYER_PERMITS + " times per period.")
    @ApiResponse(responseCode = "201", description = "Bought: the receipt")
    @ApiResponse(responseCode = "404", description = "No such item",
            content = @Content(schema = @Schema(implementation = ProblemDetail.class)))
    @ApiResponse(responseCode = "409", description = "Sold out",
            content = @Content(schema = @Schema(implementation = ProblemDetail.class)))
    @ApiResponse(responseCode = "503", description = "The item is busy or its lock was lost; retry",
            content = @Content(schema = @Schema(implementation = ProblemDetail.class)))
    @ApiResponse(responseCode = "429", description = "The buyer purchased too often; retry later", headers = {
            @Header(name = "Retry-After", description = "Seconds until a purchase can succeed"),
            @Header(name = "RateLimit", description = "Permits left (0 on a refusal) and seconds until the limit is"
                    + " full again, never more than the policy's quota and window"),
            @Header(name = "RateLimit-Policy", description = "The limit as a bucket: quota q, the most permits at"
                    + " once, and window w, the seconds to refill them")})
    public Receipt purchase(@Parameter(description = "Item name", example = "widget") @PathVariable String item,
                            @Parameter(description = "Buyer", example = "alice") @RequestParam String user) {
        return stock.purchase(item, user);
    }
}
