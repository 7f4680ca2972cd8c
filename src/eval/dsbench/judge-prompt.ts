/**
 * DSBench's judge prompt for its data-analysis tasks, word for word (typos included: the
 * judge was calibrated on it) from liqiang888/DSBench `data_analysis/compute_answer.py`
 * (MIT licence; also in ruc-datalab/DeepAnalyze playground/DSBench). The authors count an
 * answer right when the judge's reply contains "true" (any case).
 */
export function dsbenchJudgePrompt(question: string, answer: string, prediction: string): string {
  return (
    'Please judge whether the generated answer is right or wrong. We require that the correct answer ' +
    'to the prediction gives a clear answer, not just a calculation process or a disassembly of ideas. ' +
    `The question is ${question}. The true answer is \n ${answer}. \n The predicted answer is \n ${prediction}.\n ` +
    'If the predicted answer is right, please output True. Otherwise output Flase. ' +
    "Don't output any other text content. You only can output True or False."
  );
}

export function judgedTrue(reply: string): boolean {
  return reply.toLowerCase().includes('true');
}
