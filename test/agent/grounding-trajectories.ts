/**
 * DeepAnalyze-style trajectories for the grounding tests, modelled on the README files under
 * `example/` in DeepAnalyze's repository (its Simpson's-paradox and heart-failure examples,
 * among others): the same kind of data, the same kind of cells (pandas, statsmodels, seaborn,
 * networkx, scikit-learn), the same mistakes (a cell that fails by its own bug, a blank
 * `plt.figure()` before a seaborn figure-level plot, results written to a file while the cell
 * prints only "Analysis complete").
 *
 * Each has a faithful answer, written from what its cells really print and write (rounded,
 * with derived percentages and differences, as analysts write), and a fabricated one that
 * quotes numbers no cell produced; `fabricated` lists those numbers as written. The data is
 * generated here, deterministically (no file is copied).
 */

export interface TrajectoryCell {
  /** The model's reasoning before the cell. */
  analyze: string;
  code: string;
  /** The cell fails by its own bug (as DeepAnalyze's cells sometimes do): an error, not an outage. */
  failsByItsOwnBug?: boolean;
}

export interface Trajectory {
  name: string;
  question: string;
  files: Record<string, string>;
  cells: TrajectoryCell[];
  faithful: string;
  fabricatedAnswer: string;
  /** The numbers of `fabricatedAnswer` that no cell printed or wrote, as written there. */
  fabricated: string[];
  /**
   * Invented numbers of `fabricatedAnswer` that happen to equal, within their rounding, a
   * number some cell printed: grounding cannot tell them from true ones (counted as missed).
   */
  coincidental?: string[];
}

/** A seeded generator (mulberry32), so the data and every output are the same on each run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

/** Students in two departments; the treated ones are mostly in the hard one (Simpson's paradox). */
export function simpsonCsv(): string {
  const next = random(7);
  const rows = ['dept,treatment,success,age_group,income'];
  for (let i = 0; i < 600; i++) {
    const hard = next() < 0.65;
    const treatment = next() < (hard ? 0.8 : 0.3) ? 1 : 0;
    const p = (hard ? 0.25 : 0.7) + (treatment ? 0.08 : 0);
    const success = next() < p ? 1 : 0;
    const age = next() < 0.4 ? 'young' : next() < 0.6 ? 'middle' : 'senior';
    const income = (50_000 + 15_000 * normal(next)).toFixed(2);
    rows.push(`${hard ? 'A_hard' : 'B_easy'},${treatment},${success},${age},${income}`);
  }
  return `${rows.join('\n')}\n`;
}

/** A collaboration network: 30 researchers in three groups, more ties inside a group. */
export function edgesCsv(): string {
  const next = random(11);
  const rows = ['source,target,weight'];
  const name = (i: number) => `R${String(i + 1).padStart(2, '0')}`;
  for (let a = 0; a < 30; a++)
    for (let b = a + 1; b < 30; b++) {
      const same = Math.floor(a / 10) === Math.floor(b / 10);
      if (next() < (same ? 0.32 : 0.025)) rows.push(`${name(a)},${name(b)},${1 + Math.floor(next() * 5)}`);
    }
  return `${rows.join('\n')}\n`;
}

/** Monthly revenue (yuan) of four regions over a year. */
export function salesCsv(): string {
  const next = random(23);
  const rows = ['month,region,revenue'];
  const base: Record<string, number> = { 华东: 120_000, 华南: 95_000, 华北: 80_000, 西部: 45_000 };
  for (let month = 1; month <= 12; month++)
    for (const [region, level] of Object.entries(base)) {
      const trend = 1 + (month - 1) * (region === '西部' ? 0.03 : 0.012);
      rows.push(
        `2024-${String(month).padStart(2, '0')},${region},${Math.round(level * trend * (0.9 + 0.2 * next()))}`,
      );
    }
  return `${rows.join('\n')}\n`;
}

/** Heart-failure-like cohort: 300 patients, death linked to age, ejection fraction and creatinine. */
export function heartCsv(): string {
  const next = random(42);
  const rows = ['age,ejection_fraction,serum_creatinine,serum_sodium,anaemia,smoking,time,DEATH_EVENT'];
  for (let i = 0; i < 300; i++) {
    const age = Math.round(60 + 11 * normal(next));
    const ef = Math.max(14, Math.round(38 + 11 * normal(next)));
    const creatinine = Math.max(0.5, 1.2 + 0.6 * normal(next)).toFixed(2);
    const sodium = Math.round(136 + 4 * normal(next));
    const anaemia = next() < 0.43 ? 1 : 0;
    const smoking = next() < 0.32 ? 1 : 0;
    const time = Math.round(4 + next() * 280);
    const risk =
      -1.2 + 0.05 * (age - 60) - 0.06 * (ef - 38) + 0.9 * (Number(creatinine) - 1.2) - 0.008 * (time - 130);
    const death = next() < 1 / (1 + Math.exp(-risk)) ? 1 : 0;
    rows.push([age, ef, creatinine, sodium, anaemia, smoking, time, death].join(','));
  }
  return `${rows.join('\n')}\n`;
}

const SIMPSON_LOAD = `import pandas as pd

df = pd.read_csv('simpson.csv')
print("=== Dataset Information ===")
print(f"Number of rows: {len(df)}")
print(f"Number of columns: {len(df.columns)}")
print("\\nColumn names and data types:")
print(df.dtypes)
print("\\n=== Summary Statistics ===")
print(df.describe(include='all'))
print("\\n=== Missing Values ===")
print(df.isnull().sum())`;

// DeepAnalyze's own mistakes, as in its Simpson example: a blank figure before a seaborn
// figure-level plot, and a category that does not exist.
const SIMPSON_BUGGY = `import pandas as pd
import matplotlib.pyplot as plt
import seaborn as sns
import statsmodels.api as sm

df = pd.read_csv('simpson.csv')
sns.set(style="whitegrid")
plt.figure(figsize=(10, 6))
sns.catplot(data=df, x='dept', y='success', hue='treatment', kind='bar')
plt.savefig('success_by_dept_treatment.png')

# Logistic regression controlling for confounders
df['age_group'] = df['age_group'].astype('category').cat.reorder_categories(['young', 'middle', 'old'])
X = sm.add_constant(pd.get_dummies(df[['treatment', 'dept', 'age_group']], drop_first=True))
model = sm.Logit(df['success'], X).fit()
print(model.summary())`;

const SIMPSON_MODEL = `import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

df = pd.read_csv('simpson.csv')
overall = df.groupby('treatment')['success'].mean()
print("Overall success rate by treatment:")
print(overall.round(4))
print("\\nSuccess rate by department and treatment:")
print(df.groupby(['dept', 'treatment'])['success'].agg(['mean', 'count']).round(4))

model = smf.logit('success ~ treatment + C(dept) + C(age_group)', data=df).fit(disp=0)
odds = pd.DataFrame({
    'OR': np.exp(model.params),
    '2.5%': np.exp(model.conf_int()[0]),
    '97.5%': np.exp(model.conf_int()[1]),
})
with open('statistical_results.txt', 'w') as f:
    f.write("=== Logistic Regression (success ~ treatment + dept + age_group) ===\\n")
    f.write(str(model.summary()))
    f.write("\\n\\nOdds Ratios with 95% CI:\\n")
    f.write(odds.round(4).to_string())
    f.write(f"\\n\\nTreatment p-value: {model.pvalues['treatment']:.4f}\\n")
print("Analysis complete. Results saved to statistical_results.txt")`;

export const SIMPSON: Trajectory = {
  name: 'simpson',
  question: 'Analyze which teaching method (treatment) performs better.',
  files: { 'simpson.csv': simpsonCsv() },
  cells: [
    {
      analyze: 'To compare the teaching methods I first need to understand the structure of the data.',
      code: SIMPSON_LOAD,
    },
    {
      analyze:
        'Next: visualise success by department and treatment, then a logistic regression with confounders.',
      code: SIMPSON_BUGGY,
      failsByItsOwnBug: true,
    },
    {
      analyze: "The age groups are young, middle and senior; there is no 'old'. Fix the model with formulas.",
      code: SIMPSON_MODEL,
    },
  ],
  faithful: `**The treatment performs better once department is taken into account: a textbook Simpson's paradox.**

1. **Pooled rates mislead**: across all 600 students the treated group succeeds less often (44.4% vs 50.0%, 5.6 percentage points lower).
2. **Within each department the treatment wins**:

| Department | Control | Treatment | Difference |
| --- | --- | --- | --- |
| A_hard | 22.4% (n=76) | 35.5% (n=310) | +13.1 pp |
| B_easy | 66.2% (n=130) | 77.4% (n=84) | +11.2 pp |

3. **Why**: 386 of the 600 students (64.3%) are in A_hard, where success is far lower, and 310 of the 394 treated students (78.7%) are there.
4. **Adjusted model** (logistic regression with department and age group, in statistical_results.txt): the treatment's odds ratio is 1.84 (95% CI 1.20–2.82, p = 0.005); B_easy students have 6.45 times the odds of success; age group makes no significant difference (p = 0.689 and 0.890).

**Recommendation**: adopt the treatment, and compare methods within departments rather than on pooled rates.`,
  fabricatedAnswer: `Based on the successful execution and generated output files, here is the comprehensive analysis of teaching method effectiveness:

1. **Key Findings**:
- The treatment group showed a **15% higher success rate** compared to the control group (OR=1.15, 95% CI [1.08-1.22])
- Department moderated the treatment effect (interaction p = 0.021), with stronger benefits in Department B
- All 600 students were analysed.

2. **Statistical Results**:
\`\`\`
Final Model Results:
                 coef    std err      z      P>|z|
const         -1.23456   0.12345    -10.01234    0.000
treatment     0.13917    0.03245      4.28571    0.000
\`\`\`

3. **Recommendations**: implement the treatment, targeting Department B for maximum impact.`,
  fabricated: [
    '15%',
    '1.15',
    '1.08',
    '1.22',
    '0.021',
    '-1.23456',
    '0.12345',
    '-10.01234',
    '0.13917',
    '0.03245',
    '4.28571',
  ],
};

const NETWORK_LOAD = `import pandas as pd

edges = pd.read_csv('edges.csv')
print(edges.head())
print(f"\\nShape: {edges.shape}")
print(f"Unique researchers: {pd.unique(edges[['source', 'target']].values.ravel()).size}")
print(f"Weight range: {edges['weight'].min()} - {edges['weight'].max()}, mean {edges['weight'].mean():.2f}")`;

const NETWORK_METRICS = `import pandas as pd
import networkx as nx

edges = pd.read_csv('edges.csv')
G = nx.from_pandas_edgelist(edges, 'source', 'target', edge_attr='weight')
print(f"Nodes: {G.number_of_nodes()}, Edges: {G.number_of_edges()}")
print(f"Density: {nx.density(G):.4f}")
print(f"Connected components: {nx.number_connected_components(G)}")
degree = nx.degree_centrality(G)
betweenness = nx.betweenness_centrality(G)
print("\\nTop 5 by degree centrality:")
for node, value in sorted(degree.items(), key=lambda kv: -kv[1])[:5]:
    print(f"  {node}: degree centrality {value:.3f} (degree {G.degree(node)}), betweenness {betweenness[node]:.3f}")
print(f"\\nAverage clustering coefficient: {nx.average_clustering(G):.4f}")
largest = G.subgraph(max(nx.connected_components(G), key=len))
print(f"Largest component: {largest.number_of_nodes()} nodes")
print(f"Average shortest path length (largest component): {nx.average_shortest_path_length(largest):.3f}")
communities = nx.algorithms.community.greedy_modularity_communities(G)
print(f"Communities found: {len(communities)}, sizes {[len(c) for c in communities]}")
print(f"Modularity: {nx.algorithms.community.modularity(G, communities):.4f}")`;

const NETWORK_DRAW = `import pandas as pd
import networkx as nx
import matplotlib.pyplot as plt

edges = pd.read_csv('edges.csv')
G = nx.from_pandas_edgelist(edges, 'source', 'target', edge_attr='weight')
plt.figure(figsize=(9, 7))
pos = nx.spring_layout(G, seed=1)
nx.draw_networkx(G, pos, node_size=[300 * G.degree(n) for n in G], font_size=7, edge_color='#999')
plt.title('Collaboration network')
plt.axis('off')
plt.savefig('network.png', dpi=100, bbox_inches='tight')
print("Saved network.png")`;

export const NETWORK: Trajectory = {
  name: 'network',
  question: 'Who are the key researchers in this collaboration network, and how is it structured?',
  files: { 'edges.csv': edgesCsv() },
  cells: [
    { analyze: 'Load the edge list and look at its shape.', code: NETWORK_LOAD },
    {
      analyze: 'Build the graph with networkx and compute centralities and communities.',
      code: NETWORK_METRICS,
    },
    { analyze: 'Draw the network, node size by degree.', code: NETWORK_DRAW },
  ],
  faithful: `The collaboration network links **30 researchers through 55 ties** and is fully connected (1 component), but sparse: its density is 0.126, so only about 12.6% of possible pairs collaborate.

- **Most connected**: R29 and R22 (7 collaborators each, degree centrality 0.241), then R16 and R25 (6 each, 0.207).
- **Brokers**: R16 has the highest betweenness of the top five (0.205), about 2.5 times R29's (0.081): it bridges groups.
- **Structure**: greedy modularity finds 5 communities (7, 7, 6, 5 and 5 members; modularity 0.48); the clustering coefficient is 0.21, and two researchers are 3.05 steps apart on average.
- Tie strength averages 2.55 on a 1–5 scale.

The chart is in network.png.`,
  fabricatedAnswer: `The network has 30 researchers and 55 ties. R16 is the most central researcher (degree centrality 0.310, betweenness 0.412), and the average path length is 2.7. Louvain detects communities with modularity 0.61; the clustering coefficient is 0.45, well above a random graph's 0.09.`,
  fabricated: ['0.310', '0.412', '2.7', '0.61', '0.45', '0.09'],
};

const SALES_TOTALS = `import pandas as pd

df = pd.read_csv('sales.csv')
print(df.head())
print(f"\\n行数: {len(df)}, 月份: {df['month'].nunique()}, 地区: {df['region'].nunique()}")
totals = df.groupby('region')['revenue'].sum().sort_values(ascending=False)
share = (totals / totals.sum() * 100).round(2)
print("\\n各地区全年收入（元）及占比（%）:")
print(pd.DataFrame({'revenue': totals, 'share_pct': share}))
print(f"\\n全年总收入: {totals.sum()}")`;

const SALES_HALVES = `import pandas as pd
import matplotlib.pyplot as plt

df = pd.read_csv('sales.csv')
df['half'] = df['month'].str[5:7].astype(int).map(lambda m: 'H1' if m <= 6 else 'H2')
halves = df.pivot_table(index='region', columns='half', values='revenue', aggfunc='sum')
halves['growth_pct'] = ((halves['H2'] / halves['H1'] - 1) * 100).round(2)
print(halves)
monthly = df.pivot_table(index='month', columns='region', values='revenue', aggfunc='sum')
monthly.plot(figsize=(10, 5), marker='o')
plt.title('各地区月度收入')
plt.ylabel('收入（元）')
plt.savefig('monthly_revenue.png', bbox_inches='tight')
best = monthly.sum(axis=1).idxmax()
print(f"\\n收入最高的月份: {best}, 合计 {monthly.sum(axis=1).max()}")`;

export const SALES: Trajectory = {
  name: 'sales',
  question: '用中文回答：哪个地区收入最高？各地区下半年相比上半年增长了多少？',
  files: { 'sales.csv': salesCsv() },
  cells: [
    { analyze: '先读取数据，按地区汇总全年收入和占比。', code: SALES_TOTALS },
    { analyze: '再比较上下半年，并画出月度趋势。', code: SALES_HALVES },
  ],
  faithful: `## 结论
全年总收入约 443.9万元，**华东地区收入最高**：

| 地区 | 全年收入 | 占比 | 下半年较上半年 |
| --- | --- | --- | --- |
| 华东 | 154.7万元 | 34.86% | +8.08% |
| 华南 | 121.4万元 | 27.35% | +17.24% |
| 华北 | 104.1万元 | 23.45% | +3.79% |
| 西部 | 63.7万元 | 14.34% | +20.70% |

- 华东比华南多 33.4万元（高出约 27.5%）。
- 西部规模最小但增长最快：下半年收入 348132 元，比上半年增加 59710 元。
- 收入最高的月份是 2024年11月，四个地区合计 41.6万元。
- 数据覆盖 12 个月、4 个地区，共 48 行；趋势图见 monthly_revenue.png。`,
  fabricatedAnswer: `全年总收入约 520万元，华东地区占 41%，同比增长 15.3%。西部地区下半年增长 35%，预计明年收入将突破 80万元。`,
  fabricated: ['520万', '41%', '15.3%'],
  // 华东's share is 34.86% (so "35%" rounds to it) and its second half 803,764 yuan (over 80万).
  coincidental: ['35%', '80万'],
};

const HEART_LOAD = `import pandas as pd

df = pd.read_csv('heart.csv')
print(f"Shape: {df.shape}")
print(df.isnull().sum().sum(), "missing values")
counts = df['DEATH_EVENT'].value_counts()
print(counts)
print(f"Death rate: {df['DEATH_EVENT'].mean():.4f}")
print(df.describe().round(2).T[['mean', 'std', 'min', 'max']])`;

const HEART_MODELS = `import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression, Lasso
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

df = pd.read_csv('heart.csv')
X = df.drop(columns='DEATH_EVENT')
y = df['DEATH_EVENT']
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=42, stratify=y)
scaler = StandardScaler().fit(X_train)
lasso = Lasso(alpha=0.01).fit(scaler.transform(X_train), y_train)
selected = [c for c, w in zip(X.columns, lasso.coef_) if abs(w) > 1e-6]
print(f"Lasso kept {len(selected)} of {X.shape[1]} features: {selected}")
cols = [X.columns.get_loc(c) for c in selected]
Xtr, Xte = scaler.transform(X_train)[:, cols], scaler.transform(X_test)[:, cols]
results = {}
for name, model in [('Logistic Regression', LogisticRegression(max_iter=1000)),
                    ('Random Forest', RandomForestClassifier(n_estimators=100, random_state=42))]:
    model.fit(Xtr, y_train)
    proba = model.predict_proba(Xte)[:, 1]
    results[name] = (accuracy_score(y_test, model.predict(Xte)), roc_auc_score(y_test, proba))
print(f"Test set: {len(y_test)} patients")
print(f"{'Model':<22}{'Accuracy':>10}{'AUC':>10}")
for name, (acc, auc) in results.items():
    print(f"{name:<22}{acc:>10.4f}{auc:>10.4f}")`;

export const HEART: Trajectory = {
  name: 'heart',
  question: '用中文回答，用lasso回归筛选出的变量构建逻辑回归和随机森林模型，哪个更优？',
  files: { 'heart.csv': heartCsv() },
  cells: [
    { analyze: '先了解数据：规模、缺失值、结局分布。', code: HEART_LOAD },
    { analyze: '用 Lasso 筛选变量，再在同一特征集上训练逻辑回归和随机森林并比较。', code: HEART_MODELS },
  ],
  faithful: `### 结论：逻辑回归更优（以 AUC 为准）

数据共 300 名患者、7 个特征，无缺失值；死亡事件 72 例，阳性率 24.0%。按 70% / 30% 划分训练集与测试集（测试集 90 人，random_state = 42），Lasso（alpha = 0.01）保留了全部 7 个特征。

| 模型 | Accuracy | AUC |
| --- | --- | --- |
| Logistic Regression | 0.7444 | 0.7908 |
| Random Forest | 0.7778 | 0.7269 |

- 逻辑回归的 AUC 高出 0.0639（约 8.8%），区分能力更好；
- 随机森林的准确率略高（77.8% 对 74.4%，相差约 3.3 个百分点）。
- 患者平均年龄 59.6 岁，射血分数均值 38.15。`,
  fabricatedAnswer: `筛选得到 9 个关键变量。LR：Accuracy = 0.8000，AUC = 0.8332；RF：Accuracy = 0.7556，AUC = 0.8610。随机森林 AUC 更高（0.8610 > 0.8332），因此更优。阳性率约 32.1%（96/300）。`,
  fabricated: ['9', '0.8000', '0.8332', '0.7556', '0.8610', '0.8610', '> 0.8332', '32.1%', '96'],
};

export const TRAJECTORIES: readonly Trajectory[] = [SIMPSON, NETWORK, SALES, HEART];

/**
 * The scripted-model script that plays a trajectory the way DeepAnalyze-8B would on vLLM:
 * its cells, then the fabricated answer, then — asked in the repair round to compute or remove
 * the numbers that appear in no output — the faithful one.
 */
export function deepAnalyzeScript(trajectory: Trajectory) {
  const turns: Array<{ expect: Record<string, unknown>; content: string; chunk_chars: number }> =
    trajectory.cells.map((cell, index) => ({
      expect:
        index === 0
          ? { last_role: 'user', body_has: { add_generation_prompt: false } }
          : { last_role: 'execute' },
      content: `<Analyze>\n${cell.analyze}\n</Analyze>\n<Code>\n\`\`\`python\n${cell.code}\n\`\`\`\n</Code>`,
      chunk_chars: 40,
    }));
  turns.push(
    {
      expect: { last_role: 'execute' },
      content: `<Answer>\n${trajectory.fabricatedAnswer}\n</Answer>`,
      chunk_chars: 40,
    },
    {
      expect: { last_role: 'user', last_contains: 'appear in no output of the code that ran' },
      content: `<Answer>\n${trajectory.faithful}\n</Answer>`,
      chunk_chars: 40,
    },
  );
  return { model: 'DeepAnalyze-8B', turns };
}
