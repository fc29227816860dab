/*
 * ArxDriver: a small command-line driver over the ARX 3.9.2 framework (own code, not part of ARX).
 *
 *   java -cp $(cat OUT/CLASSPATH):OUT/driver/classes ArxDriver run   key=value ...
 *   java -cp ...                                    ArxDriver batch FILE [key=value ...]   (one config per line; extra keys are defaults)
 *   java -cp ...                                    ArxDriver risk  key=value ...
 *
 * Keys (see README.md):
 *   id=NAME            echoed
 *   data=PATH          CSV; sep=; (one char, default ';')
 *   qis=a,b,c          quasi-identifiers; the printed optimum lists levels in this order
 *   hier=TEMPLATE      hierarchy path with {} for the attribute name (e.g. dir/adult_hierarchy_{}.csv)
 *   hier.ATTR=PATH     per-attribute hierarchy (overrides the template); hsep=; (default sep)
 *   models=M1,M2,...   k:K | ldist:A:L | lent:A:L[:grassberger] | lrec:A:C:L | tequal:A:T | thier:A:T |
 *                      tord:A:T | delta:A:D | bbasic:A:B | benh:A:B | avgrisk:X | avgrisk3:X:H:R |
 *                      popuniq:X:pitman|zayatz|snb|dankar:POP(number|usa) | sampleuniq:X |
 *                      kmap:K:ALPHA:POP(number|usa):poisson|ztp (estimated k-map) |
 *                      dpresence:DMIN:DMAX (needs a research subset: subset= or subsetwhere=) |
 *                      profit:prosecutor|journalist[:noattack][:COST:GAIN:BENEFIT:LOSS] (journalist: subset) |
 *                      dp:EPS:DELTA:STEPS[:DEGREE] ((e,d)-differential privacy, SafePub; DEGREE, e.g.
 *                      MEDIUM, makes it data-independent; dpshare=F the search's share of EPS,
 *                      default 0.1 as ARX's GUI; STEPS in expansions; prints dp_k, dp_beta,
 *                      sampled and, with repeat=N, every run's optimum and score in runs)
 *   subset=PATH        research subset: a CSV of the subset's records (all columns, sep as data), matched
 *                      to rows of data= as ARX's DataSubset.create(data, subset); data= is the population
 *   subsetwhere=A:V    research subset: the rows whose A equals V (ARX's DataSelector, field(A).equals(V))
 *   metric=...         loss[:GS[:AGG]] (AGG sum|max|arithmetic_mean|geometric_mean|rank) | dm | dmstar |
 *                      aecs[:GS] | entropy[:GS[:mono]] | precision[:GS[:mono]] | height | kl |
 *                      class:ATTR[:GS] | nentropy | ambiguity
 *   supp=0.02          suppression limit
 *   types=A:integer,B:decimal,C:string   data types (default string)
 *   weights=A:1.0,B:0.5                   attribute weights
 *   minlevels=A:1,...  maxlevels=A:2,...  generalization bounds
 *   pin=l1,l2,...      pin every QI (qis order) to one level: a one-node lattice (tie check)
 *   insensitive=A,B    (default: every column not QI/sensitive is insensitive)
 *   repeat=N           best-of-N anonymize() in this JVM, a fresh Data each run (default 1)
 *   out=PATH           write the optimum's output CSV (';')
 *   direct=true        read the CSV with ARX's own Data.create(path) inside the timed region (whole-process mode;
 *                      the allstar count is then skipped)
 *   threshold=100000   ARX's heuristic-search threshold (lattice size above which OPTIMAL refuses)
 *   algorithm=lightning|genetic|optimal   ARX's AnonymizationAlgorithm (BEST_EFFORT_BOTTOM_UP, BEST_EFFORT_GENETIC)
 *   steplimit=N        heuristic search step limit in checks;  timelimit=MS  heuristic time limit
 *   deterministic=true the genetic algorithm's deterministic mode (Random(0xDEADBEEF));
 *   iterations=N       its iterations (ARX's default 50);  immigration=F  its immigration fraction (0.2)
 *   risk mode: what=input|optimum|pin  pop=N|usa  rthreshold=0.2
 *   Local recoding keys (after the global search, on the optimum's output handle):
 *   local=iterative    ARXResult.optimizeIterative(handle, lgs, passes, adapt)
 *   local=fast         ARXResult.optimizeIterativeFast(handle, records, lgs|NaN)
 *   passes=N lgs=F adapt=A records=R   (defaults 4, 0.05, 0, 0.25)
 *   Output adds: outliers_before, granularity_before, local_steps (levels:records:score per pass, in qis order),
 *   outliers (after), granularity (ARX's quality statistics of the combined handle),
 *   local_ms; out= then writes the combined output.
 * Output: one JSON object per config on stdout.
 */
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXPopulationModel.Region;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.metric.InformationLoss;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.Metric.AggregateFunction;
import org.deidentifier.arx.metric.v2.AbstractILMultiDimensional;
import org.deidentifier.arx.metric.v2.ILMultiDimensionalRank;
import org.deidentifier.arx.risk.RiskEstimateBuilder;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness.PopulationUniquenessModel;
import org.deidentifier.arx.risk.RiskModelSampleRisks;
import org.deidentifier.arx.risk.RiskModelSampleSummary;

public class ArxDriver {

    static final Map<String, List<String[]>> TABLES = new HashMap<>();
    static final Map<String, String[][]> HIERS = new HashMap<>();
    /** Rows of the research subset of the current configuration (null: every row is released). */
    static int[] SUBSET_ROWS = null;

    public static void main(String[] args) throws Exception {
        if (args.length == 0) { System.err.println("usage: ArxDriver run|batch|risk ..."); System.exit(2); }
        String mode = args[0];
        if (mode.equals("batch")) {
            Map<String, String> defaults = parse(Arrays.copyOfRange(args, 2, args.length));
            try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(args[1]), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    line = line.trim();
                    if (line.isEmpty() || line.startsWith("#")) continue;
                    Map<String, String> cfg = new LinkedHashMap<>(defaults);
                    cfg.putAll(parse(line.split("\\s+")));
                    String m = cfg.getOrDefault("mode", "run");
                    one(m, cfg);
                }
            }
        } else {
            one(mode, parse(Arrays.copyOfRange(args, 1, args.length)));
        }
    }

    static void one(String mode, Map<String, String> cfg) {
        StringBuilder sb = new StringBuilder("{");
        kv(sb, "id", cfg.getOrDefault("id", ""));
        try {
            if (mode.equals("risk")) risk(cfg, sb); else run(cfg, sb);
        } catch (Throwable t) {
            kv(sb, "error", t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()));
        }
        sb.append("}");
        System.out.println(sb.toString().replace("{,", "{"));
        System.out.flush();
    }

    static Map<String, String> parse(String[] toks) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String t : toks) {
            if (t.isEmpty()) continue;
            int i = t.indexOf('=');
            if (i < 0) throw new IllegalArgumentException("not key=value: " + t);
            m.put(t.substring(0, i), t.substring(i + 1));
        }
        return m;
    }

    // ------------------------------------------------------------------ data
    static char sep(Map<String, String> cfg, String key) {
        String s = cfg.getOrDefault(key, cfg.getOrDefault("sep", ";"));
        if (s.equals("tab")) return '\t';
        if (s.equals("comma")) return ',';
        return s.charAt(0);
    }

    static List<String[]> table(Map<String, String> cfg) throws IOException {
        String path = cfg.get("data");
        String key = path + "|" + sep(cfg, "sep");
        List<String[]> rows = TABLES.get(key);
        if (rows == null) {
            Data d = Data.create(path, StandardCharsets.UTF_8, sep(cfg, "sep"));
            DataHandle h = d.getHandle();
            rows = new ArrayList<>();
            String[] header = new String[h.getNumColumns()];
            for (int c = 0; c < header.length; c++) header[c] = h.getAttributeName(c);
            rows.add(header);
            for (int r = 0; r < h.getNumRows(); r++) {
                String[] row = new String[header.length];
                for (int c = 0; c < header.length; c++) row[c] = h.getValue(r, c);
                rows.add(row);
            }
            TABLES.put(key, rows);
        }
        return rows;
    }

    static String hierPath(Map<String, String> cfg, String attr) {
        String p = cfg.get("hier." + attr);
        if (p != null) return p;
        String t = cfg.get("hier");
        if (t == null) return null;
        return t.replace("{}", attr);
    }

    static Hierarchy hierarchy(Map<String, String> cfg, String attr) throws IOException {
        String path = hierPath(cfg, attr);
        if (path == null) throw new IllegalArgumentException("no hierarchy for " + attr);
        String[][] a = HIERS.get(path);
        if (a == null) {
            a = Hierarchy.create(path, StandardCharsets.UTF_8, sep(cfg, "hsep")).getHierarchy();
            HIERS.put(path, a);
        }
        return Hierarchy.create(a);
    }

    static List<String> list(Map<String, String> cfg, String key) {
        String v = cfg.get(key);
        List<String> out = new ArrayList<>();
        if (v == null || v.isEmpty()) return out;
        for (String s : v.split(",")) if (!s.isEmpty()) out.add(s);
        return out;
    }

    static Map<String, String> pairs(Map<String, String> cfg, String key) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String s : list(cfg, key)) {
            int i = s.lastIndexOf(':');
            out.put(s.substring(0, i), s.substring(i + 1));
        }
        return out;
    }

    static DataType<?> dataType(String t) {
        switch (t) {
            case "integer": return DataType.INTEGER;
            case "decimal": return DataType.DECIMAL;
            case "string": return DataType.STRING;
            default: throw new IllegalArgumentException("unknown type " + t);
        }
    }

    /** Sensitive attributes named by the models. */
    static Set<String> sensitive(Map<String, String> cfg) {
        Set<String> s = new LinkedHashSet<>();
        for (String m : list(cfg, "models")) {
            String[] p = m.split(":");
            switch (p[0]) {
                case "ldist": case "lent": case "lrec": case "tequal": case "thier": case "tord":
                case "delta": case "bbasic": case "benh":
                    s.add(p[1]);
            }
        }
        s.addAll(list(cfg, "sensitive"));
        return s;
    }

    static Data buildData(Map<String, String> cfg, boolean direct) throws IOException {
        Data data;
        if (direct) {
            data = Data.create(cfg.get("data"), StandardCharsets.UTF_8, sep(cfg, "sep"));
        } else {
            data = Data.create(table(cfg));
        }
        DataDefinition def = data.getDefinition();
        List<String> qis = list(cfg, "qis");
        Set<String> sens = sensitive(cfg);
        Map<String, String> types = pairs(cfg, "types");
        DataHandle h = data.getHandle();
        for (int c = 0; c < h.getNumColumns(); c++) {
            String a = h.getAttributeName(c);
            if (types.containsKey(a)) def.setDataType(a, dataType(types.get(a)));
            if (qis.contains(a)) {
                def.setAttributeType(a, hierarchy(cfg, a));
            } else if (sens.contains(a)) {
                def.setAttributeType(a, AttributeType.SENSITIVE_ATTRIBUTE);
            } else {
                def.setAttributeType(a, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        for (Map.Entry<String, String> e : pairs(cfg, "minlevels").entrySet())
            def.setMinimumGeneralization(e.getKey(), Integer.parseInt(e.getValue()));
        for (Map.Entry<String, String> e : pairs(cfg, "maxlevels").entrySet())
            def.setMaximumGeneralization(e.getKey(), Integer.parseInt(e.getValue()));
        if (cfg.containsKey("pin")) {
            String[] lv = cfg.get("pin").split(",");
            for (int i = 0; i < qis.size(); i++) {
                int l = Integer.parseInt(lv[i]);
                def.setMinimumGeneralization(qis.get(i), l);
                def.setMaximumGeneralization(qis.get(i), l);
            }
        }
        String cls = classAttribute(cfg);
        if (cls != null) def.setResponseVariable(cls, true);
        microaggregate(cfg, def);
        return data;
    }

    // ------------------------------------------------------------------ microaggregation
    /** microaggregate=ATTR:FUNCTION[:cluster],... (issue 34): ARX's
     *  setMicroAggregationFunction(attr, function, performClustering). An attribute left out
     *  of qis= becomes a quasi-identifier without a hierarchy (aggregated, not generalized);
     *  mode_fallback breaks ties by the attribute's input frequencies, seed 0. */
    static void microaggregate(Map<String, String> cfg, DataDefinition def) throws IOException {
        for (String item : list(cfg, "microaggregate")) {
            String[] p = item.split(":");
            boolean cluster = p.length > 2 && p[2].equals("cluster");
            if (!list(cfg, "qis").contains(p[0])) def.setAttributeType(p[0], AttributeType.QUASI_IDENTIFYING_ATTRIBUTE);
            def.setMicroAggregationFunction(p[0], microFunction(cfg, p[0], p[1]), cluster);
        }
    }

    static AttributeType.MicroAggregationFunction microFunction(Map<String, String> cfg, String attr, String name) throws IOException {
        switch (name) {
            case "mean": return AttributeType.MicroAggregationFunction.createArithmeticMean();
            case "geometric_mean": return AttributeType.MicroAggregationFunction.createGeometricMean();
            case "median": return AttributeType.MicroAggregationFunction.createMedian();
            case "mode": return AttributeType.MicroAggregationFunction.createMode();
            case "interval": return AttributeType.MicroAggregationFunction.createInterval();
            case "set": return AttributeType.MicroAggregationFunction.createSet();
            case "mode_fallback": {
                List<String[]> rows = table(cfg);
                int col = Arrays.asList(rows.get(0)).indexOf(attr);
                Map<String, Double> freq = new HashMap<>();
                for (int r = 1; r < rows.size(); r++) freq.merge(rows.get(r)[col], 1d / (rows.size() - 1), Double::sum);
                return AttributeType.MicroAggregationFunction.createModeWithDistributionFallback(freq, 0L);
            }
            default: throw new IllegalArgumentException("unknown microaggregation function " + name);
        }
    }

    static String classAttribute(Map<String, String> cfg) {
        String m = cfg.getOrDefault("metric", "loss");
        if (m.startsWith("class:")) return m.split(":")[1];
        return null;
    }

    // ------------------------------------------------------------------ models
    static ARXPopulationModel population(String p) {
        if (p.equalsIgnoreCase("usa")) return ARXPopulationModel.create(Region.USA);
        return ARXPopulationModel.create(Long.parseLong(p));
    }

    /** The research subset of subset= (a CSV of records) or subsetwhere=A:V (a selector) over data. */
    static DataSubset researchSubset(Map<String, String> cfg, Data data) throws Exception {
        if (cfg.containsKey("subset")) {
            Data records = Data.create(cfg.get("subset"), StandardCharsets.UTF_8, sep(cfg, "sep"));
            DataSubset subset = DataSubset.create(data, records);
            SUBSET_ROWS = subset.getArray();
            return subset;
        }
        String where = cfg.get("subsetwhere");
        if (where == null) throw new IllegalArgumentException("dpresence needs subset= or subsetwhere=");
        int i = where.indexOf(':');
        DataSelector selector = DataSelector.create(data).field(where.substring(0, i)).equals(where.substring(i + 1));
        DataSubset subset = DataSubset.create(data, selector);
        SUBSET_ROWS = subset.getArray();
        return subset;
    }

    /** The run's (e,d)-differential privacy model, if any (its k, beta and sample are printed). */
    static EDDifferentialPrivacy DP_MODEL = null;

    static ARXConfiguration buildConfig(Map<String, String> cfg, Data data) throws Exception {
        ARXConfiguration c = ARXConfiguration.create();
        SUBSET_ROWS = null;
        DP_MODEL = null;
        for (String m : list(cfg, "models")) {
            String[] p = m.split(":");
            switch (p[0]) {
                case "k": c.addPrivacyModel(new KAnonymity(Integer.parseInt(p[1]))); break;
                case "ldist": c.addPrivacyModel(new DistinctLDiversity(p[1], Integer.parseInt(p[2]))); break;
                case "lent":
                    if (p.length > 3 && p[3].equals("grassberger"))
                        c.addPrivacyModel(new EntropyLDiversity(p[1], Double.parseDouble(p[2]), EntropyLDiversity.EntropyEstimator.GRASSBERGER));
                    else
                        c.addPrivacyModel(new EntropyLDiversity(p[1], Double.parseDouble(p[2]), EntropyLDiversity.EntropyEstimator.SHANNON));
                    break;
                case "lrec": c.addPrivacyModel(new RecursiveCLDiversity(p[1], Double.parseDouble(p[2]), Integer.parseInt(p[3]))); break;
                case "tequal": c.addPrivacyModel(new EqualDistanceTCloseness(p[1], Double.parseDouble(p[2]))); break;
                case "thier": c.addPrivacyModel(new HierarchicalDistanceTCloseness(p[1], Double.parseDouble(p[2]), hierarchy(cfg, p[1]))); break;
                case "tord": c.addPrivacyModel(new OrderedDistanceTCloseness(p[1], Double.parseDouble(p[2]))); break;
                case "delta": c.addPrivacyModel(new DDisclosurePrivacy(p[1], Double.parseDouble(p[2]))); break;
                case "bbasic": c.addPrivacyModel(new BasicBLikeness(p[1], Double.parseDouble(p[2]))); break;
                case "benh": c.addPrivacyModel(new EnhancedBLikeness(p[1], Double.parseDouble(p[2]))); break;
                case "avgrisk": c.addPrivacyModel(new AverageReidentificationRisk(Double.parseDouble(p[1]))); break;
                case "avgrisk3": c.addPrivacyModel(new AverageReidentificationRisk(Double.parseDouble(p[1]), Double.parseDouble(p[2]), Double.parseDouble(p[3]))); break;
                case "sampleuniq": c.addPrivacyModel(new SampleUniqueness(Double.parseDouble(p[1]))); break;
                case "kmap": {
                    KMap.CellSizeEstimator est = p[4].equals("ztp") ? KMap.CellSizeEstimator.ZERO_TRUNCATED_POISSON
                                                                    : KMap.CellSizeEstimator.POISSON;
                    c.addPrivacyModel(new KMap(Integer.parseInt(p[1]), Double.parseDouble(p[2]), population(p[3]), est));
                    break;
                }
                case "dpresence":
                    c.addPrivacyModel(new DPresence(Double.parseDouble(p[1]), Double.parseDouble(p[2]), researchSubset(cfg, data)));
                    break;
                case "dp": {
                    double eps = Double.parseDouble(p[1]);
                    DataGeneralizationScheme scheme = p.length > 4
                        ? DataGeneralizationScheme.create(DataGeneralizationScheme.GeneralizationDegree.valueOf(p[4]))
                        : null;
                    DP_MODEL = new EDDifferentialPrivacy(eps, Double.parseDouble(p[2]), scheme);
                    c.addPrivacyModel(DP_MODEL);
                    c.setDPSearchBudget(eps * Double.parseDouble(cfg.getOrDefault("dpshare", "0.1")));
                    c.setHeuristicSearchStepLimit(Integer.parseInt(p[3]), ARXConfiguration.SearchStepSemantics.EXPANSIONS);
                    break;
                }
                case "profit": {
                    // profit:prosecutor|journalist[:noattack][:COST:GAIN:BENEFIT:LOSS]
                    boolean noattack = p.length > 2 && p[2].equals("noattack");
                    int at = noattack ? 3 : 2;
                    ARXCostBenefitConfiguration prices = ARXCostBenefitConfiguration.create();
                    if (p.length >= at + 4) {
                        prices.setAdversaryCost(Double.parseDouble(p[at]))
                              .setAdversaryGain(Double.parseDouble(p[at + 1]))
                              .setPublisherBenefit(Double.parseDouble(p[at + 2]))
                              .setPublisherLoss(Double.parseDouble(p[at + 3]));
                    }
                    c.setCostBenefitConfiguration(prices);
                    boolean journalist = p[1].equals("journalist");
                    if (journalist && noattack) c.addPrivacyModel(new ProfitabilityJournalistNoAttack(researchSubset(cfg, data)));
                    else if (journalist) c.addPrivacyModel(new ProfitabilityJournalist(researchSubset(cfg, data)));
                    else if (noattack) c.addPrivacyModel(new ProfitabilityProsecutorNoAttack());
                    else c.addPrivacyModel(new ProfitabilityProsecutor());
                    break;
                }
                case "popuniq": {
                    PopulationUniquenessModel pm = PopulationUniquenessModel.valueOf(p[2].toUpperCase());
                    c.addPrivacyModel(new PopulationUniqueness(Double.parseDouble(p[1]), pm, population(p[3])));
                    break;
                }
                default: throw new IllegalArgumentException("unknown model " + m);
            }
        }
        c.setQualityModel(metric(cfg.getOrDefault("metric", "loss")));
        c.setSuppressionLimit(Double.parseDouble(cfg.getOrDefault("supp", "0")));
        for (Map.Entry<String, String> e : pairs(cfg, "weights").entrySet())
            c.setAttributeWeight(e.getKey(), Double.parseDouble(e.getValue()));
        if (cfg.containsKey("threshold")) c.setHeuristicSearchThreshold(Integer.parseInt(cfg.get("threshold")));
        String algorithm = cfg.getOrDefault("algorithm", "optimal");
        if (algorithm.equals("lightning")) c.setAlgorithm(ARXConfiguration.AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP);
        else if (algorithm.equals("genetic")) c.setAlgorithm(ARXConfiguration.AnonymizationAlgorithm.BEST_EFFORT_GENETIC);
        if (cfg.containsKey("steplimit")) c.setHeuristicSearchStepLimit(Integer.parseInt(cfg.get("steplimit")));
        if (cfg.containsKey("timelimit")) c.setHeuristicSearchTimeLimit(Integer.parseInt(cfg.get("timelimit")));
        if (cfg.containsKey("deterministic")) c.setGeneticAlgorithmDeterministic(Boolean.parseBoolean(cfg.get("deterministic")));
        if (cfg.containsKey("iterations")) c.setGeneticAlgorithmIterations(Integer.parseInt(cfg.get("iterations")));
        if (cfg.containsKey("immigration")) c.setGeneticAlgorithmImmigrationFraction(Double.parseDouble(cfg.get("immigration")));
        return c;
    }

    static AggregateFunction agg(String a) {
        switch (a) {
            case "sum": return AggregateFunction.SUM;
            case "max": return AggregateFunction.MAXIMUM;
            case "arithmetic_mean": return AggregateFunction.ARITHMETIC_MEAN;
            case "geometric_mean": return AggregateFunction.GEOMETRIC_MEAN;
            case "rank": return AggregateFunction.RANK;
            default: throw new IllegalArgumentException("unknown aggregate " + a);
        }
    }

    static Metric<?> metric(String spec) {
        String[] p = spec.split(":");
        boolean mono = p.length > 2 && p[2].equals("mono");
        switch (p[0]) {
            case "loss":
                if (p.length == 1) return Metric.createLossMetric();
                if (p.length == 2) return Metric.createLossMetric(Double.parseDouble(p[1]));
                return Metric.createLossMetric(Double.parseDouble(p[1]), agg(p[2]));
            case "dm": return Metric.createDiscernabilityMetric(false);
            case "dmstar": return Metric.createDiscernabilityMetric(true);
            case "aecs": return p.length > 1 ? Metric.createAECSMetric(Double.parseDouble(p[1])) : Metric.createAECSMetric();
            case "entropy": return p.length > 1 ? Metric.createEntropyMetric(mono, Double.parseDouble(p[1])) : Metric.createEntropyMetric();
            case "precision": return p.length > 1 ? Metric.createPrecisionMetric(mono, Double.parseDouble(p[1])) : Metric.createPrecisionMetric();
            case "height": return Metric.createHeightMetric();
            case "kl": return Metric.createKLDivergenceMetric();
            case "class": return p.length > 2 ? Metric.createClassificationMetric(Double.parseDouble(p[2])) : Metric.createClassificationMetric();
            case "nentropy": return Metric.createNormalizedEntropyMetric();
            case "ambiguity": return Metric.createAmbiguityMetric();
            case "payout": // payout[:prosecutor|journalist[:GS]]
                return Metric.createPublisherPayoutMetric(p.length > 1 && p[1].equals("journalist"),
                                                          p.length > 2 ? Double.parseDouble(p[2]) : 0.5d);
            default: throw new IllegalArgumentException("unknown metric " + spec);
        }
    }

    // ------------------------------------------------------------------ run
    static void run(Map<String, String> cfg, StringBuilder sb) throws Exception {
        int repeat = Integer.parseInt(cfg.getOrDefault("repeat", "1"));
        boolean direct = Boolean.parseBoolean(cfg.getOrDefault("direct", "false"));
        long best = Long.MAX_VALUE;
        List<Long> times = new ArrayList<>();
        ARXResult res = null;
        Data data = null;
        StringBuilder runs = new StringBuilder();
        for (int r = 0; r < repeat; r++) {
            long t0 = System.nanoTime();
            if (!direct) t0 = 0;
            Data d = buildData(cfg, direct);
            ARXConfiguration c = buildConfig(cfg, d);
            ARXAnonymizer an = new ARXAnonymizer();
            long t1 = System.nanoTime();
            ARXResult rr = an.anonymize(d, c);
            long t2 = System.nanoTime();
            long t = direct ? t2 - t0 : t2 - t1;
            times.add(t);
            best = Math.min(best, t);
            res = rr; data = d;
            if (DP_MODEL != null && rr.getGlobalOptimum() != null) {
                ARXNode o = rr.getGlobalOptimum();
                runs.append(runs.length() > 0 ? "|" : "");
                for (int i = 0; i < list(cfg, "qis").size(); i++) runs.append(i > 0 ? "," : "").append(o.getGeneralization(list(cfg, "qis").get(i)));
                runs.append("/").append(o.getHighestScore().toString());
            }
        }
        if (DP_MODEL != null) {
            kv(sb, "dp_k", String.valueOf(DP_MODEL.getK()));
            kv(sb, "dp_beta", String.valueOf(DP_MODEL.getBeta()));
            kv(sb, "sampled", String.valueOf(DP_MODEL.getDataSubset().getArray().length));
            kv(sb, "runs", runs.toString());
        }
        List<String> qis = list(cfg, "qis");
        ARXNode opt = res.getGlobalOptimum();
        kv(sb, "time_ms", String.format(Locale.ROOT, "%.3f", best / 1e6));
        StringBuilder ts = new StringBuilder();
        for (long t : times) ts.append(ts.length() > 0 ? "," : "").append(String.format(Locale.ROOT, "%.3f", t / 1e6));
        kv(sb, "times_ms", ts.toString());
        // checked nodes
        int checked = 0, size = 0;
        for (ARXNode[] level : res.getLattice().getLevels()) for (ARXNode n : level) { size++; if (n.isChecked()) checked++; }
        kv(sb, "checked", String.valueOf(checked));
        kv(sb, "lattice", String.valueOf(size));
        if (opt == null) {
            sb.append(",\"optimum\":null");
            return;
        }
        int[] lv = new int[qis.size()];
        for (int i = 0; i < qis.size(); i++) lv[i] = opt.getGeneralization(qis.get(i));
        StringBuilder ls = new StringBuilder();
        for (int i = 0; i < lv.length; i++) ls.append(i > 0 ? "," : "").append(lv[i]);
        kv(sb, "optimum", ls.toString());
        InformationLoss<?> il = opt.getHighestScore();
        kv(sb, "score", il.toString());
        if (il instanceof ILMultiDimensionalRank) {
            double[] v = ((ILMultiDimensionalRank) il).getValue();
            double m = 1d;
            for (double x : v) m *= Math.pow(x + 1d, 1d / v.length);
            kv(sb, "rank_mean", String.valueOf(m - 1d));
        }
        DataHandle out = res.getOutput(opt, false);
        if (SUBSET_ROWS != null) out = out.getView();  // ARX releases the research subset only
        int outliers = 0;
        for (int r = 0; r < out.getNumRows(); r++) if (out.isOutlier(r)) outliers++;
        kv(sb, "outliers", String.valueOf(outliers));
        // rows whose generalized QI values (before suppression) are all '*'
        // (skipped in whole-process mode: it re-reads the table outside ARX's own flow)
        if (!direct && !cfg.getOrDefault("allstar", "true").equals("false")) {
            int allstar = allStar(cfg, qis, lv);
            kv(sb, "allstar", String.valueOf(allstar));
            kv(sb, "suppressed", String.valueOf(outliers - allstar));
        }
        if (cfg.containsKey("local")) local(cfg, sb, res, out, qis, outliers);
        if (cfg.containsKey("out")) out.save(cfg.get("out"), ';');
    }

    static int allStar(Map<String, String> cfg, List<String> qis, int[] lv) throws IOException {
        List<String[]> rows = table(cfg);
        String[] header = rows.get(0);
        int[] col = new int[qis.size()];
        List<Map<String, String>> maps = new ArrayList<>();
        for (int i = 0; i < qis.size(); i++) {
            col[i] = Arrays.asList(header).indexOf(qis.get(i));
            String[][] h = hierarchy(cfg, qis.get(i)).getHierarchy();
            Map<String, String> m = new HashMap<>();
            for (String[] hr : h) m.put(hr[0], hr[Math.min(lv[i], hr.length - 1)]);
            maps.add(m);
        }
        int n = 0;
        for (int r = 1; r < rows.size(); r++) {
            if (SUBSET_ROWS != null && Arrays.binarySearch(SUBSET_ROWS, r - 1) < 0) continue;
            boolean all = true;
            for (int i = 0; i < col.length && all; i++) {
                String g = maps.get(i).get(rows.get(r)[col[i]]);
                if (!DataType.ANY_VALUE.equals(g)) all = false;
            }
            if (all) n++;
        }
        return n;
    }

    // ------------------------------------------------------------------ risk
    static void risk(Map<String, String> cfg, StringBuilder sb) throws Exception {
        String what = cfg.getOrDefault("what", "input");
        ARXPopulationModel pm = population(cfg.getOrDefault("pop", "usa"));
        double thr = Double.parseDouble(cfg.getOrDefault("rthreshold", "0.2"));
        DataHandle handle;
        if (what.equals("input")) {
            Data d = buildData(cfg, false);
            handle = d.getHandle();
        } else {
            if (!cfg.containsKey("models")) cfg.put("models", "k:1");
            Data d = buildData(cfg, false);
            ARXResult res = new ARXAnonymizer().anonymize(d, buildConfig(cfg, d));
            if (res.getGlobalOptimum() == null) { sb.append(",\"optimum\":null"); return; }
            handle = res.getOutput(res.getGlobalOptimum(), false);
            List<String> qis = list(cfg, "qis");
            StringBuilder ls = new StringBuilder();
            for (int i = 0; i < qis.size(); i++) ls.append(i > 0 ? "," : "").append(res.getGlobalOptimum().getGeneralization(qis.get(i)));
            kv(sb, "optimum", ls.toString());
        }
        RiskEstimateBuilder rb = handle.getRiskEstimator(pm);
        RiskModelSampleRisks sr = rb.getSampleBasedReidentificationRisk();
        num(sb, "highest", sr.getHighestRisk());
        num(sb, "average", sr.getAverageRisk());
        num(sb, "records_at_highest", sr.getFractionOfRecordsAffectedByHighestRisk());
        num(sb, "lowest", sr.getLowestRisk());
        num(sb, "records_at_lowest", sr.getFractionOfRecordsAffectedByLowestRisk());
        num(sb, "est_prosecutor", sr.getEstimatedProsecutorRisk());
        num(sb, "est_journalist", sr.getEstimatedJournalistRisk());
        num(sb, "est_marketer", sr.getEstimatedMarketerRisk());
        RiskModelSampleSummary ss = rb.getSampleBasedRiskSummary(thr);
        num(sb, "records_at_risk", ss.getProsecutorRisk().getRecordsAtRisk());
        num(sb, "sample_uniques", rb.getSampleBasedUniquenessRisk().getFractionOfUniqueRecords());
        RiskModelPopulationUniqueness pu = rb.getPopulationBasedUniquenessRisk();
        num(sb, "pitman", pu.getFractionOfUniqueTuplesPitman());
        num(sb, "zayatz", pu.getFractionOfUniqueTuplesZayatz());
        num(sb, "snb", pu.getFractionOfUniqueTuplesSNB());
        num(sb, "dankar", pu.getFractionOfUniqueTuplesDankar());
        kv(sb, "dankar_model", String.valueOf(pu.getPopulationUniquenessModel()));
    }

    // ------------------------------------------------------------------ json
    static void kv(StringBuilder sb, String k, String v) {
        sb.append(",\"").append(k).append("\":\"").append(v.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"");
    }

    static void num(StringBuilder sb, String k, double v) {
        kv(sb, k, String.valueOf(v));
    }

    /** ARX's local recoding of the optimum's output handle (ARXResult.optimize*). */
    static void local(Map<String, String> cfg, StringBuilder sb, ARXResult res, DataHandle out,
                      List<String> qis, int before) throws Exception {
        double gs = Double.parseDouble(cfg.getOrDefault("lgs", "0.05"));
        num(sb, "granularity_before", out.getStatistics().getQualityStatistics().getGranularity().getArithmeticMean());
        long t0 = System.nanoTime();
        ARXProcessStatistics stats;
        if (cfg.get("local").equals("fast")) {
            double records = Double.parseDouble(cfg.getOrDefault("records", "0.25"));
            stats = res.optimizeIterativeFast(out, records, cfg.containsKey("lgs") ? gs : Double.NaN,
                                              new ARXListener() { public void progress(double p) {} });
        } else {
            int passes = Integer.parseInt(cfg.getOrDefault("passes", "4"));
            double adapt = Double.parseDouble(cfg.getOrDefault("adapt", "0"));
            stats = res.optimizeIterative(out, gs, passes, adapt);
        }
        long t1 = System.nanoTime();
        kv(sb, "local_ms", String.format(Locale.ROOT, "%.3f", (t1 - t0) / 1e6));
        kv(sb, "outliers_before", String.valueOf(before));
        StringBuilder steps = new StringBuilder();
        // Steps made by local recoding carry no header map: their levels are in the order of
        // the optimum's quasi-identifiers (ARX's internal order), mapped to qis= here.
        List<String> internal = Arrays.asList(res.getGlobalOptimum().getQuasiIdentifyingAttributes());
        for (ARXProcessStatistics.Step step : stats.getSteps()) {
            int[] levels = step.getTransformation();
            StringBuilder lv = new StringBuilder();
            for (int i = 0; i < qis.size(); i++) lv.append(i > 0 ? "," : "").append(levels[internal.indexOf(qis.get(i))]);
            steps.append(steps.length() > 0 ? " | " : "").append(lv).append(":")
                 .append(step.getNumberOfRecordsTransformed()).append(":").append(step.getScore());
        }
        kv(sb, "local_steps", steps.toString());
        int outliers = 0;
        for (int r = 0; r < out.getNumRows(); r++) if (out.isOutlier(r)) outliers++;
        kv(sb, "outliers", String.valueOf(outliers));
        num(sb, "granularity", out.getStatistics().getQualityStatistics().getGranularity().getArithmeticMean());
    }
}
