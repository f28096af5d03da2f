"""The words of lesson 16's language pair (``xai_tf.seq2seq.data``): an English-like source and a
Portuguese-like target, real words on both sides so that a translation can be read.

Each table is one string, one entry per line, fields split by spaces:

- ``NOUNS``: English, Portuguese, gender (m/f), and ``p`` where the noun is a place one can go to.
- ``ADJECTIVES``: English, Portuguese masculine form; the feminine form ends in -a where the masculine
  ends in -o (``vermelho`` → ``vermelha``), otherwise it is the same (``grande``, ``feliz``).
- ``TRANSITIVE`` / ``INTRANSITIVE``: English base form, English third person singular, Portuguese
  infinitive; present tense by rule (-ar: ``compra``/``compro``; -er, -ir: ``come``/``como``) unless
  a fourth and fifth field give the third and first person singular (``dorme durmo``).
"""

NOUNS = """
dog cão m
cat gato m
house casa f p
store loja f p
park parque m p
city cidade f p
book livro m
table mesa f
car carro m
door porta f
window janela f
tree árvore f
bird pássaro m
teacher professor m
student aluno m
doctor médico m
friend amigo m
girl menina f
boy menino m
woman mulher f
man homem m
child criança f
king rei m
queen rainha f
horse cavalo m
cow vaca f
fish peixe m
apple maçã f
bread pão m
cake bolo m
letter carta f
phone telefone m
chair cadeira f
bed cama f
garden jardim m p
school escola f p
church igreja f p
river rio m p
sea mar m p
beach praia f p
mountain montanha f p
street rua f p
bank banco m p
market mercado m p
library biblioteca f p
hospital hospital m p
station estação f p
train comboio m
ship navio m
boat barco m
plane avião m
key chave f
box caixa f
bag bolsa f
shirt camisa f
hat chapéu m
shoe sapato m
glass copo m
bottle garrafa f
song canção f
picture quadro m
film filme m
game jogo m
ball bola f
flower flor f
farmer agricultor m
baker padeiro m
singer cantor m
sister irmã f
brother irmão m
mother mãe f
father pai m
neighbour vizinho m
soldier soldado m
cook cozinheiro m
painter pintor m
writer escritor m
nurse enfermeira f
lawyer advogado m
pilot piloto m
lion leão m
wolf lobo m
mouse rato m
rabbit coelho m
duck pato m
pig porco m
goat cabra f
sheep ovelha f
snake cobra f
bear urso m
monkey macaco m
kitchen cozinha f p
room sala f p
office escritório m p
museum museu m p
theatre teatro m p
restaurant restaurante m p
hotel hotel m p
farm quinta f p
village aldeia f p
bridge ponte f p
road estrada f p
island ilha f p
forest floresta f p
lake lago m p
"""

ADJECTIVES = """
big grande
small pequeno
old velho
new novo
red vermelho
black preto
white branco
green verde
blue azul
yellow amarelo
happy feliz
sad triste
tall alto
short baixo
young jovem
beautiful bonito
ugly feio
rich rico
poor pobre
fast rápido
slow lento
strong forte
weak fraco
hot quente
cold frio
clean limpo
dirty sujo
quiet calmo
angry zangado
tired cansado
famous famoso
empty vazio
full cheio
cheap barato
expensive caro
dark escuro
strange estranho
kind gentil
brave corajoso
clever esperto
lazy preguiçoso
"""

TRANSITIVE = """
buy buys comprar
find finds encontrar
help helps ajudar
carry carries levar
wash washes lavar
paint paints pintar
visit visits visitar
call calls chamar
love loves amar
watch watches observar
push pushes empurrar
pull pulls puxar
kick kicks chutar
close closes fechar
open opens abrir
eat eats comer
drink drinks beber
sell sells vender
write writes escrever
break breaks partir
teach teaches ensinar
attack attacks atacar
save saves salvar
hide hides esconder
fear fears temer
catch catches apanhar
draw draws desenhar
clean cleans limpar
touch touches tocar
kiss kisses beijar
hold holds segurar
choose chooses escolher
describe describes descrever
receive receives receber
use uses usar
admire admires admirar
study studies estudar
pay pays pagar
see sees ver vê vejo
"""

INTRANSITIVE = """
sing sings cantar
work works trabalhar
run runs correr
jump jumps saltar
swim swims nadar
dance dances dançar
cry cries chorar
walk walks caminhar
wait waits esperar
speak speaks falar
arrive arrives chegar
sleep sleeps dormir dorme durmo
"""
