// Long prompts written for the router's tests from general knowledge (not from any evaluation set).
export const pandasCode = [
  "import pandas as pd",
  "",
  "def load(path):",
  "    df = pd.read_csv(path)",
  "    df = df.dropna(subset=['amount'])",
  "    df['month'] = pd.to_datetime(df['date']).dt.to_period('M')",
  "    totals = df.groupby(['customer', 'month'])['amount'].sum().reset_index()",
  "    merged = totals.merge(df[['customer', 'region']].drop_duplicates(), on='customer')",
  "    return merged.pivot_table(index='customer', columns='month', values='amount')",
  "",
  "def report(rows, columns):",
  "    table = load('sales.csv')",
  "    return table[columns].head(rows)",
].join("\n");
export const pyTrace = [
  "Traceback (most recent call last):",
  '  File "report.py", line 14, in report',
  "    return table[columns].head(rows)",
  '  File "/usr/lib/python3/site-packages/pandas/core/frame.py", line 3767, in __getitem__',
  "    indexer = self.columns._get_indexer_strict(key, \"columns\")[1]",
  "KeyError: \"None of [Index(['2024-01'], dtype='object')] are in the [columns]\"",
].join("\n");
export const tsCode = [
  "export interface OrderRepository { find(id: string): Promise<Order | undefined>; }",
  "export class OrderService {",
  "  constructor(private readonly repo: OrderRepository, private readonly events: EventBus) {}",
  "  async place(order: Order): Promise<void> {",
  "    const existing = await this.repo.find(order.id);",
  "    if (existing) throw new Error('duplicate');",
  "    this.events.publish({ type: 'order-placed', order });",
  "  }",
  "}",
  "export const module = { providers: [OrderService, { provide: 'OrderRepository', useClass: SqlOrderRepository }] };",
].join("\n");
export const gameCode = [
  "const intro = [",
  "  'Once upon a time, a dragon guarded the last library of the kingdom.',",
  "  'The young heroine dreamed of the stories hidden behind its doors.',",
  "  'One night she decided to imagine a new ending for the old tale.',",
  "];",
  "function showDialogue(lines) {",
  "  const box = document.getElementById('dialogue');",
  "  lines.forEach((line, i) => setTimeout(() => { box.textContent = line; }, i * 2000));",
  "}",
  "window.addEventListener('load', showDialogue(intro));",
].join("\n");
export const memo = [
  "From: people-ops@example.com",
  "Subject: Updated travel and expense policy",
  "",
  "Hi all, the travel policy in the employee handbook has been updated. According to section 4, economy class is required for flights under six hours,",
  "hotel costs are reimbursed up to the documented limit, and receipts must be uploaded to the expense portal within 30 days. The full document is on the intranet.",
].join("\n");
export const tickets = ["id,title,component,opened", ...[
  "Crash when saving draft,editor,2024-03-01", "NullPointerException in sync job,sync,2024-03-02", "Login error after password reset,auth,2024-03-02",
  "Timeout exception on export,export,2024-03-03", "Editor freezes on paste,editor,2024-03-04", "Stack overflow in sync retry,sync,2024-03-05",
  "Crash on startup on Android 14,mobile,2024-03-05", "Error 500 from billing API,billing,2024-03-06", "Sync loses tags,sync,2024-03-07",
].map((r, i) => `${i + 1},${r}`)].join("\n");
export const archDoc = Array.from({ length: 6 }, (_, i) => [
  `Service ${i + 1}: handles ${["checkout", "inventory", "pricing", "notifications", "search", "accounts"][i]} for the web shop. It owns its own database tables, exposes a REST API and publishes events to the message bus when its state changes. `,
  "It is deployed as a container and scaled horizontally by the platform team, with a separate on-call rotation.",
].join("")).join("\n\n");
export const LONG_PROMPT_CASES: readonly (readonly [expected: string, name: string, prompt: string])[] = [
  ["technical-analysis", "pandas code + traceback", `I wrote this report helper:\n\n\`\`\`python\n${pandasCode}\n\`\`\`\n\nand calling report(5, ['2024-01']) gives:\n\n${pyTrace}\n\nWhat am I doing wrong?`],
  ["technical-analysis", "TS service code + compiler question", `\`\`\`ts\n${tsCode}\n\`\`\`\n\nThe compiler says "Cannot find name 'SqlOrderRepository'" although the file exists. What am I missing?`],
  ["technical-analysis", "game code with story strings", `\`\`\`js\n${gameCode}\n\`\`\`\n\nWhy does only the first line ever show up in the box?`],
  ["creative-orientation", "policy e-mail -> poem", `${memo}\n\nTurn this announcement into a short funny poem for the team newsletter.`],
  ["data-processing", "bug tickets CSV -> counts", `${tickets}\n\nCount the tickets per component and sort the components by that count.`],
  ["structural-thinking", "architecture doc -> split", `Here is how our shop is built today.\n\n${archDoc}\n\nIs this split into services sensible, or should some of them be merged into one deployable?`],
];
